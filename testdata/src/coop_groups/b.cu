#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__device__ __noinline__ void b_grid_step(int *data)
{
    cg::grid_group g = cg::this_grid();
    data[g.thread_rank()] *= 2;
    g.sync();
    cg::thread_block_tile<32> t = cg::tiled_partition<32>(cg::this_thread_block());
    data[g.thread_rank()] += t.shfl(data[0], 3);
}
