#include "minmax.cuh"
#include <cfloat>

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) minmaxSinglePass(const float *x, int n, MinMaxIdx *out) {
  __shared__ MinMaxIdx warpRes[BLOCK / 32];
  MinMaxIdx v{FLT_MAX, -FLT_MAX, -1, -1};
  for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += BLOCK * gridDim.x) {
    MinMaxIdx e{x[i], x[i], i, i};
    v = combine(v, e);
  }
  v = warpCombine(v);
  int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
  if (lane == 0) warpRes[wid] = v;
  __syncthreads();
  if (wid == 0) {
    v = lane < BLOCK / 32 ? warpRes[lane] : MinMaxIdx{FLT_MAX, -FLT_MAX, -1, -1};
    v = warpCombine(v);
    if (lane == 0) partials[blockIdx.x] = v;
  }
  if (isLastBlock()) {
    if (wid == 0) {
      MinMaxIdx acc{FLT_MAX, -FLT_MAX, -1, -1};
      for (int b = lane; b < gridDim.x; b += 32) acc = combine(acc, partials[b]);
      acc = warpCombine(acc);
      if (lane == 0) {
        *out = acc;
        blocksRetired = 0;
      }
    }
  }
}

template __global__ void minmaxSinglePass<128>(const float *, int, MinMaxIdx *);
template __global__ void minmaxSinglePass<512>(const float *, int, MinMaxIdx *);
