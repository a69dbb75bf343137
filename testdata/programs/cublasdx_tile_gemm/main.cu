#include <cstdio>
#include <vector>
#include "gemm_desc.cuh"

int main() {
  const int tiles = 16, elems = tiles * 32 * 32;
  std::vector<float> h(elems, 0.5f);
  float *a, *b, *c, *bias;
  cudaMalloc(&a, elems * sizeof(float));
  cudaMalloc(&b, elems * sizeof(float));
  cudaMalloc(&c, elems * sizeof(float));
  cudaMalloc(&bias, 32 * sizeof(float));
  cudaMemcpy(a, h.data(), elems * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(b, h.data(), elems * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemset(c, 0, elems * sizeof(float));
  cudaMemset(bias, 0, 32 * sizeof(float));
  unsigned smem = tileGemmSmemBytes();
  cudaFuncSetAttribute(tileGemmKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  tileGemmKernel<<<tiles, TileGemm::block_dim, smem>>>(a, b, c, bias, 1.0f, 0.0f);
  cudaMemcpy(h.data(), c, elems * sizeof(float), cudaMemcpyDeviceToHost);
  printf("c[0] = %f (expect 8)\n", h[0]);
  return 0;
}
