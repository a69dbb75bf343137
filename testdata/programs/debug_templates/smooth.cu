#include "vec_ops.cuh"
__device__ float scale_factor(int i) { return 1.0f + 0.001f * (i & 15); }
__global__ void smooth(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i + 4 <= n) out[i] = clamp01(window_mean<float, 4>(in, i));
}
__global__ void smooth_d(const double *in, double *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i + 8 <= n) out[i] = clamp01(window_mean<double, 8>(in, i));
}
