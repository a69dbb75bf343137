#include <cstdio>
#include <cstdlib>
#include "minmax.cuh"

template <int BLOCK>
__global__ void minmaxSinglePass(const float *x, int n, MinMaxIdx *out);

int main() {
  const int n = 1 << 20;
  float *x;
  MinMaxIdx *r;
  cudaMallocManaged(&x, n * sizeof(float));
  cudaMallocManaged(&r, sizeof(MinMaxIdx));
  for (int i = 0; i < n; ++i) x[i] = (float)rand() / RAND_MAX - 0.5f;
  minmaxSinglePass<128><<<256, 128>>>(x, n, r);
  cudaDeviceSynchronize();
  printf("min %f at %d, max %f at %d\n", r->lo, r->loIdx, r->hi, r->hiIdx);
  minmaxSinglePass<512><<<64, 512>>>(x, n, r);
  cudaDeviceSynchronize();
  printf("min %f at %d, max %f at %d\n", r->lo, r->loIdx, r->hi, r->hiIdx);
  cudaFree(x);
  cudaFree(r);
  return 0;
}
