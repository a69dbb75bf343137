#include "diag.cuh"

__global__ void scaleKernel(float *x, int n, float s, int verbose);
__global__ void normKernel(const float *x, int n, double *out);
__global__ void validateKernel(const unsigned *tags, int n, unsigned expect);

__global__ void loadKernel(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = 1.0f / (1 + i);
  if (i == 0) report(STAGE_LOAD, 0, n);
}

int main() {
  const int n = 4096;
  float *x;
  double *r;
  unsigned *tags;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&r, sizeof(double));
  cudaMalloc(&tags, n * sizeof(unsigned));
  cudaMemset(tags, 0, n * sizeof(unsigned));
  loadKernel<<<n / 256, 256>>>(x, n);
  scaleKernel<<<n / 256, 256>>>(x, n, 2.f, 1);
  normKernel<<<1, 256>>>(x, n, r);
  validateKernel<<<n / 256, 256>>>(tags, n, 0u);
  cudaDeviceSynchronize();
  return 0;
}
