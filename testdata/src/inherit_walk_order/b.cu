#include <cassert>
#include <cooperative_groups.h>
__device__ __noinline__ int rec(int x)
{
    x = x * 6 + 1;
    if (x > 15) x = rec(x);
    return x;
}
__device__ __noinline__ int grid_step(int x)
{
    x = rec(x);
    assert(x != 42134);
    cooperative_groups::this_grid().sync();
    if (x > 44) x = grid_step(x);
    return x;
}
__global__ void k_b(int *o)
{
    int x = o ? o[threadIdx.x] : 0;
    x = rec(x);
    x = grid_step(x);
    assert(x != 80805);
    if (o) o[threadIdx.x] = x;
}
