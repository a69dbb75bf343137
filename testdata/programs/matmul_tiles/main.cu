#include <cstdio>
#include <cuda_runtime.h>

void matmul(float *c, const float *a, const float *b, int n, bool big_tiles);

__global__ void fill(float *x, int n, float v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = v;
}

int main() {
  const int n = 256;
  float *a, *b, *c;
  cudaMalloc(&a, n * n * sizeof(float));
  cudaMalloc(&b, n * n * sizeof(float));
  cudaMalloc(&c, n * n * sizeof(float));
  fill<<<n * n / 256, 256>>>(a, n * n, 1.0f);
  fill<<<n * n / 256, 256>>>(b, n * n, 2.0f);
  matmul(c, a, b, n, true);
  matmul(c, a, b, n, false);
  float h;
  cudaMemcpy(&h, c, sizeof h, cudaMemcpyDeviceToHost);
  printf("%f\n", h);
  return 0;
}
