// With extern __shared__ arrays in use and a function's static object that no kernel reaches
// (nvlink's pool), every kernel gets a .nv.shared.<kernel>, even one that uses no shared
// memory (k_plain, in b.cu), aligned for the pool (16 here); with a pool aligned above 16
// only sm_90 keeps those of kernels without static objects (see shared_pool_align). Found by
// scripts/fuzz-equiv (seed 34).
extern __shared__ __align__(16) char dyn[];

__device__ __noinline__ int f_dead(int x)
{
    __shared__ char s[16];
    s[threadIdx.x % 16] = (char)x;
    __syncthreads();
    return s[(threadIdx.x + 1) % 16];
}

__global__ void k_extern(int *o)
{
    int x = o[threadIdx.x];
    dyn[threadIdx.x] = (char)x;
    __syncthreads();
    o[threadIdx.x] = x + dyn[0];
}
