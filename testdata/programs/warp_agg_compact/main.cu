#include <cstdio>
#include "compact.cuh"

__global__ void compactKernel(const float *in, int n, int which, float *out) {
  Predicate pred = predicateTable[which];
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    float v = in[i];
    if (pred(v)) out[aggregatedIncrement(&outCount)] = v;
  }
}

__global__ void bucketKernel(const float *in, int n, float *buckets, int stride) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = in[i];
  int b = v < -1.f ? 0 : v < 0.f ? 1 : v < 1.f ? 2 : 3;
  unsigned slot = bucketIncrement(b);
  if (slot < stride) buckets[b * stride + slot] = v;
}

int main() {
  const int n = 1 << 20;
  float *in, *out;
  cudaMallocManaged(&in, n * sizeof(float));
  cudaMallocManaged(&out, 4 * n * sizeof(float));
  for (int i = 0; i < n; ++i) in[i] = (float)((i * 37) % 401 - 200);
  unsigned zero = 0, count;
  for (int w = 0; w < 3; ++w) {
    cudaMemcpyToSymbol(outCount, &zero, sizeof(zero));
    compactKernel<<<128, 256>>>(in, n, w, out);
    cudaMemcpyFromSymbol(&count, outCount, sizeof(count));
    printf("predicate %d kept %u\n", w, count);
  }
  bucketKernel<<<(n + 255) / 256, 256>>>(in, n, out, n);
  cudaDeviceSynchronize();
  return 0;
}
