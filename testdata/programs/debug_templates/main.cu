#include "vec_ops.cuh"
#include <cuda_runtime.h>
__global__ void saxpy(float, const float *, float *, int);
__global__ void smooth(const float *, float *, int);
// This file's own copies of the helpers (the same weak instantiations as the others').
__global__ void blend(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = clamp01(axpy(0.5f, x[i], 0.5f * y[i])) + window_mean<float, 4>(x, 0) * 0.f;
}
int main() {
  float *x, *y;
  cudaMalloc(&x, 1024 * 4); cudaMalloc(&y, 1024 * 4);
  saxpy<<<4, 256>>>(2.f, x, y, 1024);
  smooth<<<4, 256>>>(x, y, 1020);
  blend<<<4, 256>>>(y, x, 1024);
  cudaDeviceSynchronize();
  return 0;
}
