#include "fence.h"

__device__ unsigned int gRetired = 0;
__device__ float gPartials[4096];

__device__ bool lastBlockDone(unsigned numBlocks) {
  __shared__ bool amLast;
  __threadfence();
  if (threadIdx.x == 0) {
    unsigned ticket = atomicInc(&gRetired, numBlocks);
    amLast = ticket == numBlocks - 1;
  }
  __syncthreads();
  return amLast;
}

template <unsigned BS>
__device__ float reduceSmem(float *s, float v) {
  unsigned t = threadIdx.x;
  s[t] = v;
  __syncthreads();
#pragma unroll
  for (unsigned stride = BS / 2; stride > 32; stride >>= 1) {
    if (t < stride) s[t] = v = v + s[t + stride];
    __syncthreads();
  }
  if (t < 32) {
    volatile float *vs = s;
    if (BS >= 64) vs[t] = v = v + vs[t + 32];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
  }
  return v;
}

template __device__ float reduceSmem<256>(float *, float);
template __device__ float reduceSmem<128>(float *, float);
