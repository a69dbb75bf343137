// More objects of the same size in a second file, reached by k2 (through b_use) and k3/k4.
extern __device__ void fw0(double *p);

__shared__ int fb[4];

__device__ __noinline__ void b_use(double *p)
{
    __shared__ float t[4];
    t[threadIdx.x & 3] = p[0];
    fb[threadIdx.x & 3] = 3;
    __syncthreads();
    p[1] = t[2] + fb[1];
}

__global__ void k3(double *p) { b_use(p); fw0(p); }
__global__ void k4(double *p) { b_use(p); }
