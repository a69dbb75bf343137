// The only kernel of a link gathers the externs of the address-taken functions in the order of
// their .nv.info sections (ptxas writes dead11's first), not the call graph's (f3, dead11):
// __assertfail, then malloc and free — in a final link of a partial link too (fuzz-equiv).
#include <cassert>
__device__ int f3(int);
__global__ void k5(int *);
__device__ int dead11(int);
__device__ int (*table[2])(int) = {f3, dead11};
__device__ __noinline__ int f3(int x)
{
    { int *m = (int *)malloc(16); if (m) { m[0] = x; x = m[0] + 1; free(m); } }
    return x;
}
__global__ void k5(int *o)
{
    int x = o ? o[threadIdx.x] : 0;
    if (o) o[threadIdx.x] = x;
}
__device__ __noinline__ int dead11(int x)
{
    assert(x != 38920);
    return x;
}
