// The second object (see a.cu): 64-aligned arrays, a 32-aligned function object.
extern __shared__ __align__(64) double dyn_b[];

__device__ __noinline__ int f_b(int x)
{
    __shared__ __align__(32) int u[3];
    u[threadIdx.x % 3] = x;
    __syncthreads();
    return u[(threadIdx.x + 1) % 3];
}

__global__ void k_b(int *o) { dyn_b[threadIdx.x] = 2; __syncthreads(); o[0] = (int)dyn_b[1] + f_b(o[1]); }
__global__ void k_b_static(int *o)
{
    __shared__ short s[5];
    s[threadIdx.x % 5] = o[3];
    __syncthreads();
    o[0] = s[(threadIdx.x + 1) % 5] + f_b(o[2]);
}
