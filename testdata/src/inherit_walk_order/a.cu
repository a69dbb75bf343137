// The order of the records a kernel inherits (barrier count, %ctaid.z use, the EXTERNS record
// the link adds): nvlink walks the kernel's callees depth first in call-graph order and meets
// each function's records after its callees' — here, finishing a partial link (whose records
// are reversed), k_b inherits the barrier count through grid_step's call of the barrier
// helper (whose .nv.info comes before k_b's, brought by k_a) before grid_step's own %ctaid.z
// use (found by scripts/fuzz-equiv).
#include <cooperative_groups.h>
__global__ void k_a(int *o)
{
    int x = o ? o[threadIdx.x] : 0;
    cooperative_groups::this_grid().sync();
    if (o) o[threadIdx.x] = x + 1;
}
