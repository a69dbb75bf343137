// Key encoders and the user combiner DeviceSegmentedReduce::Reduce calls across files.
#include "keys.cuh"

__device__ unsigned long long g_sorted_tiles;
__device__ unsigned long long g_combines;

__device__ unsigned encode_key(float f) {
  unsigned u = __float_as_uint(f);
  return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

__device__ float decode_key(unsigned u) {
  return __uint_as_float((u & 0x80000000u) ? (u & 0x7fffffffu) : ~u);
}

__device__ float soft_combine(float a, float b) {
  // log(exp(a) + exp(b)), stable.
  float m = fmaxf(a, b);
  if (m == -INFINITY) return m;
  atomicAdd(&g_combines, 1ull);
  return m + log1pf(__expf(-fabsf(a - b)));
}
