// The launched kernel: a static __shared__ object in a callee, and an extern array.
extern __shared__ int dyn[];

__device__ __noinline__ int f_static(int x)
{
    __shared__ double s[16];
    s[threadIdx.x % 16] = x;
    __syncthreads();
    return (int)s[(threadIdx.x + 1) % 16];
}
__device__ __noinline__ int f_dyn(int i) { return dyn[i]; }

__global__ void k_child(int *o)
{
    int x = o[threadIdx.x];
    o[threadIdx.x] = f_static(x) + f_dyn(x);
}
