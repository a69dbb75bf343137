#include "stencil.cuh"

__constant__ float cCoef[2 * RADIUS + 1];

// Each thread issues 16-byte async copies for its part of the chunk.
__device__ void stageChunk(float *dst, const float *src, int count) {
  for (int i = threadIdx.x * 4; i < count; i += blockDim.x * 4)
    __pipeline_memcpy_async(dst + i, src + i, 4 * sizeof(float));
  __pipeline_commit();
}

__device__ float applyStencil(const float *s, int i) {
  float acc = 0.f;
#pragma unroll
  for (int k = -RADIUS; k <= RADIUS; ++k) acc += cCoef[k + RADIUS] * s[i + k];
  return acc;
}
