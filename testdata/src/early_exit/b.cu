__device__ __noinline__ int b_twice(int x) { return 2 * x; }

__global__ void ee_shared(float *c, int n)
{
    __shared__ float t[256];
    int i = threadIdx.x;
    if (i >= n) return;
    t[i] = c[i];
    __syncthreads();
    c[i] = t[(i + 1) % 256];
}
