#include <cstdio>
#include <vector>
#include <cuda_runtime.h>
#include "histo.cuh"

int main() {
  const int bytes = 1 << 24, words = bytes / 16;
  std::vector<unsigned char> h(bytes);
  for (int i = 0; i < bytes; ++i) h[i] = (i * 131 + (i >> 7)) & 0xff;
  uint4 *d;
  unsigned *partials, *out;
  cudaMalloc(&d, bytes);
  cudaMalloc(&partials, kPartials * 256 * sizeof(unsigned));
  cudaMallocManaged(&out, 256 * sizeof(unsigned));
  cudaMemcpy(d, h.data(), bytes, cudaMemcpyHostToDevice);
  histogram256(d, words, partials, out);
  cudaDeviceSynchronize();
  printf("bin0 %u\n", out[0]);
  histogram64(d, words, partials, out);
  cudaDeviceSynchronize();
  printf("bin0/64 %u\n", out[0]);
  return 0;
}
