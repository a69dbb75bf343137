// The same through a partial link: a kernel that inherits a barrier count and gets an
// EXTERNS record from its callee gets the EXTERNS record first.
#include <cassert>
#include <cooperative_groups.h>
__device__ __noinline__ int synced(int x)
{
    cooperative_groups::this_grid().sync();
    assert(x != 90388);
    return x;
}
__global__ void k_reaches_sync(int *o)
{
    int x = o ? o[threadIdx.x] : 0;
    x = synced(x);
    if (o) o[threadIdx.x] = x;
}
