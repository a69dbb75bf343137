#include "gemm_desc.cuh"

__device__ float bias_relu(float acc, float bias) { return fmaxf(acc + bias, 0.0f); }

// c is the shared 32x32 tile in TileGemm's smem C layout (column-major by default).
__device__ void apply_epilogue(float *c, const float *bias, int rows, int cols) {
  for (int i = threadIdx.x; i < rows * cols; i += blockDim.x) c[i] = bias_relu(c[i], bias[i % rows]);
}
