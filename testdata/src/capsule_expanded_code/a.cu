// sm_100+: a grid sync makes ptxas's finalizer add code the capsule does not describe (dummy
// loads, out-of-line slow paths), so the capsule's instruction numbering is not the SASS's.
// Where the linked offset of the constant load goes in the capsule is not known: cubin-ld
// refuses rather than leave the capsule's copy unpatched.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern __constant__ int later;
extern __device__ int g(int x); // (a call keeps nvlink from re-scheduling the kernel)

__global__ void k(int *out)
{
    int v = g(out[threadIdx.x]) + later;
    cg::this_grid().sync();
    out[threadIdx.x] = v;
}
