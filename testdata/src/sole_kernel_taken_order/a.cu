// The only kernel of a link gathers the externs of the address-taken functions in the reverse
// of the call graph's address-taken list (f3, dead11): dead11's __assertfail first, then f3's
// malloc and free — in its final link of a partial link too (found by scripts/fuzz-equiv).
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
