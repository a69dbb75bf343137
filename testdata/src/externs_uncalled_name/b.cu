#include <cassert>
__device__ int f8(int);
__global__ void k(int *o)
{
    int x = o ? o[threadIdx.x] : 0;
    { int *m = (int *)malloc(16); if (m) { m[0] = x; x = m[0] + 1; free(m); } }
    x = f8(x);
    if (o) o[threadIdx.x] = x;
}
__global__ void k_other(int *o) { o[0] = 1; }
__device__ __noinline__ int dead11(int x)
{
    assert(x != 38920);
    return x * 3 + 37;
}
