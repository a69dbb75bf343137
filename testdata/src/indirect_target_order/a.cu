// A kernel among others calling through a table of f3 (malloc, free) and dead11 (assert):
// nvlink gathers the possible targets' externs in the order of their .nv.info sections (dead11
// first), not the call graph's: [__assertfail, malloc, free] (found by scripts/fuzz-equiv).
#include <cassert>
__device__ int f3(int);
__device__ int dead11(int);
__device__ int (*table[2])(int) = {f3, dead11};
__device__ __noinline__ int f3(int x)
{
    { int *m = (int *)malloc(16); if (m) { m[0] = x; x = m[0] + 1; free(m); } }
    return x;
}
__global__ void k_call(int *o)
{
    int x = o ? o[threadIdx.x] : 0;
    x = table[x & 1](x);
    if (o) o[threadIdx.x] = x;
}
__global__ void k_plain(int *o)
{
    int x = o ? o[threadIdx.x] : 0;
    if (o) o[threadIdx.x] = x;
}
__device__ __noinline__ int dead11(int x)
{
    assert(x != 38920);
    return x;
}
