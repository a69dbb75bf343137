#include <cstdio>
#include <cuda_runtime.h>
#include "fence.h"

template <unsigned BS>
__global__ void sumSinglePass(const float *in, unsigned n, float *out) {
  __shared__ float s[BS];
  float v = 0.f;
  for (unsigned i = blockIdx.x * BS + threadIdx.x; i < n; i += BS * gridDim.x) v += in[i];
  v = reduceSmem<BS>(s, v);
  if (threadIdx.x == 0) gPartials[blockIdx.x] = v;
  if (lastBlockDone(gridDim.x)) {
    float p = 0.f;
    for (unsigned i = threadIdx.x; i < gridDim.x; i += BS) p += gPartials[i];
    __syncthreads();
    p = reduceSmem<BS>(s, p);
    if (threadIdx.x == 0) {
      *out = p;
      gRetired = 0;
    }
  }
}

int main() {
  const unsigned n = 1 << 22;
  float *in, *out;
  cudaMallocManaged(&in, n * sizeof(float));
  cudaMallocManaged(&out, sizeof(float));
  for (unsigned i = 0; i < n; ++i) in[i] = 1.f;
  sumSinglePass<256><<<64, 256>>>(in, n, out);
  cudaDeviceSynchronize();
  printf("%f\n", *out);
  sumSinglePass<128><<<96, 128>>>(in, n, out);
  cudaDeviceSynchronize();
  printf("%f\n", *out);
  return 0;
}
