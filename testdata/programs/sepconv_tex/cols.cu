#include "conv.cuh"

#define COL_W 16
#define COL_H 16

__global__ void ConvColsSmem(const float *src, float *dst) {
  __shared__ float strip[COL_H + 2 * KRADIUS][COL_W + 1];
  int x = blockIdx.x * COL_W + threadIdx.x;
  int y0 = blockIdx.y * COL_H;
  for (int r = threadIdx.y; r < COL_H + 2 * KRADIUS; r += blockDim.y)
    strip[r][threadIdx.x] = clamp_read(src, x, y0 + r - KRADIUS);
  __syncthreads();
  int y = y0 + threadIdx.y;
  if (x >= d_extent.x || y >= d_extent.y) return;
  float acc = 0.f;
#pragma unroll
  for (int k = -KRADIUS; k <= KRADIUS; ++k) acc += tap(k) * strip[threadIdx.y + KRADIUS + k][threadIdx.x];
  dst[y * d_extent.x + x] = acc;
}
