// The link keeps a.cu's copy of mix<float>; b.cu's is discarded, but nvlink keeps the
// relocations of its .debug_info entry and .debug_loc lists (now meaning a.cu's copy), and
// drops those of its line-table sequence and frame entry.
#include "helpers.cuh"
__global__ void k_a(float *o, const float *x) {
  int i = threadIdx.x;
  o[i] = mix(x[i], o[i], 0.25f);
}
