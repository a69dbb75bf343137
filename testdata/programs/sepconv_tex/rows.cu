#include "conv.cuh"

__constant__ float d_taps[KLEN];
__constant__ int2 d_extent;

__device__ float clamp_read(const float *img, int x, int y) {
  x = min(max(x, 0), d_extent.x - 1);
  y = min(max(y, 0), d_extent.y - 1);
  return img[y * d_extent.x + x];
}

__global__ void ConvRowsTex(cudaTextureObject_t src, float *dst) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= d_extent.x || y >= d_extent.y) return;
  float acc = 0.f;
#pragma unroll
  for (int k = -KRADIUS; k <= KRADIUS; ++k)
    acc += tap(k) * tex2D<float>(src, x + k + 0.5f, y + 0.5f);
  dst[y * d_extent.x + x] = acc;
}
