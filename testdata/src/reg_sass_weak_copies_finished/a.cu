// -G, sm_100+: two objects instantiate libcu++'s pipeline templates (weak functions). A partial
// link keeps one copy of each but the records of both in .nv_debug_info_reg_sass (the
// discarded copy's ranges zeroed); finishing it, where the templates are removed, zeroes every
// record of the name (cubin-ld refused: the records do not pair one to one). Found by
// scripts/fuzz-equiv seed 8.
#include <cuda_pipeline.h>
__device__ int src_a[64];
__device__ __noinline__ int f1(int x) {
  { __shared__ int a2[32]; __pipeline_memcpy_async(&a2[threadIdx.x % 32], &src_a[(threadIdx.x + x) & 63], 4); __pipeline_commit(); __pipeline_wait_prior(0); x += a2[(threadIdx.x + 1) % 32]; }
  return x;
}
