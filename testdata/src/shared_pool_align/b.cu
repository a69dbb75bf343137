// A second object whose function's object is unreached and 4-aligned (see a.cu).
__device__ __noinline__ int f_other(int x)
{
    __shared__ __align__(4) char u[5];
    u[threadIdx.x % 5] = x;
    __syncthreads();
    return u[(threadIdx.x + 1) % 5];
}
