// A kernel that inherits a barrier count, %ctaid.z use and an EXTERNS record from its callees:
// nvlink adds them as it reads the callees' .nv.info sections that follow the kernel's (a
// partial link's order: in the callees' record order), the rest afterwards (barriers, EXTERNS,
// %ctaid.z).
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
