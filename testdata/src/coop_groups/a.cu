// Cooperative groups: grid-wide synchronisation in a kernel and in a callee from another TU.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern __device__ void b_grid_step(int *data);
__global__ void k_grid(int *data)
{
    cg::grid_group g = cg::this_grid();
    data[g.thread_rank()] += 1;
    g.sync();
    b_grid_step(data);
}
