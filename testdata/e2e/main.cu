// A small separately compiled CUDA program: host code here, kernels in kernels.cu, device
// helpers in helper.cu (built into a static library by the CMake project).
#include <cstdio>
#include <cuda_runtime.h>

extern __global__ void scale_add(float *y, const float *x, float a, int n);
extern __device__ float bias;

int main() {
  const int n = 256;
  float *x = nullptr, *y = nullptr;
  if (cudaMalloc(&x, n * sizeof(float)) != cudaSuccess ||
      cudaMalloc(&y, n * sizeof(float)) != cudaSuccess) {
    std::printf("no CUDA device\n");
    return 0;
  }
  float b = 1.0f;
  cudaMemcpyToSymbol(bias, &b, sizeof b);
  scale_add<<<(n + 127) / 128, 128>>>(y, x, 2.0f, n);
  cudaDeviceSynchronize();
  cudaFree(x);
  cudaFree(y);
  std::printf("done\n");
  return 0;
}
