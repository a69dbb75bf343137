#include "minmax.cuh"
#include <cfloat>

__device__ unsigned int blocksRetired = 0;
__device__ MinMaxIdx partials[2048];

__device__ __noinline__ MinMaxIdx combine(MinMaxIdx a, MinMaxIdx b) {
  MinMaxIdx r;
  if (b.lo < a.lo || (b.lo == a.lo && b.loIdx < a.loIdx)) { r.lo = b.lo; r.loIdx = b.loIdx; }
  else { r.lo = a.lo; r.loIdx = a.loIdx; }
  if (b.hi > a.hi || (b.hi == a.hi && b.hiIdx < a.hiIdx)) { r.hi = b.hi; r.hiIdx = b.hiIdx; }
  else { r.hi = a.hi; r.hiIdx = a.hiIdx; }
  return r;
}

__device__ MinMaxIdx warpCombine(MinMaxIdx v) {
  for (int off = 16; off > 0; off >>= 1) {
    MinMaxIdx o;
    o.lo = __shfl_down_sync(0xffffffffu, v.lo, off);
    o.hi = __shfl_down_sync(0xffffffffu, v.hi, off);
    o.loIdx = __shfl_down_sync(0xffffffffu, v.loIdx, off);
    o.hiIdx = __shfl_down_sync(0xffffffffu, v.hiIdx, off);
    v = combine(v, o);
  }
  return v;
}

__device__ bool isLastBlock() {
  __shared__ bool last;
  __threadfence();
  if (threadIdx.x == 0) {
    unsigned int t = atomicInc(&blocksRetired, gridDim.x);
    last = (t == gridDim.x - 1);
  }
  __syncthreads();
  return last;
}

// Kept for a debugging path that was removed: never called.
__device__ int countOutliers(const float *x, int n, float lim) {
  int c = 0;
  for (int i = 0; i < n; ++i) c += fabsf(x[i]) > lim;
  return c;
}
