// -G code copying asynchronously (cp.async) names the undefined local .nv.ptx.const0.size
// (as libcudadevrt does). -r keeps one such symbol per name, made with the first object
// naming it (cubin-ld kept one per object). Found by scripts/fuzz-equiv seed 5.
#include <cuda_pipeline.h>
__device__ int src_a[64];
__device__ __noinline__ int f(int x) {
  { __shared__ int s4[64]; __pipeline_memcpy_async(&s4[threadIdx.x % 64], &src_a[(threadIdx.x + x) & 63], 4); __pipeline_commit(); __pipeline_wait_prior(0); x += s4[(threadIdx.x + 1) % 64]; }
  return x;
}
