#include <cstdio>
#include <cuda_runtime.h>
#include "stage.cuh"

__global__ void pipelined_dot(const float *x, const float *y, int chunks, float *out,
                              unsigned long long *over);
__global__ void barrier_scale(float *x, float factor);

__global__ void fill_ramp(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = (i % 1000) / 1000.0f;
}

int main() {
  const int blocks = 32, chunks = 8, n = blocks * chunks * stage::kChunk;
  float *x, *y, *out;
  unsigned long long *over;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  cudaMallocManaged(&out, sizeof(float));
  cudaMallocManaged(&over, sizeof(unsigned long long));
  *out = 0;
  *over = 0;
  fill_ramp<<<n / 256, 256>>>(x, n);
  fill_ramp<<<n / 256, 256>>>(y, n);
  barrier_scale<<<n / stage::kChunk, stage::kBlock>>>(y, 2.0f);
  pipelined_dot<<<blocks, stage::kBlock>>>(x, y, chunks, out, over);
  cudaDeviceSynchronize();
  printf("dot %f over %llu\n", *out, *over);
  return 0;
}
