// Host driver: sets the epilogue, runs the tensor-core GEMM and the FMA fallback on the same
// shapes and prints a corner of each result. Compiled, not run.
#include <cstdio>
#include <vector>
#include "gemm_api.cuh"

int main() {
  const int m = 512, n = 512, k = 256;
  std::vector<__half> hh(m * k, __float2half(0.5f));
  std::vector<float> hf(m * k, 0.5f);
  __half *Ah, *Bh;
  float *Af, *Bf, *C1, *C2;
  cudaMalloc(&Ah, m * k * sizeof(__half));
  cudaMalloc(&Bh, n * k * sizeof(__half));
  cudaMalloc(&Af, m * k * sizeof(float));
  cudaMalloc(&Bf, n * k * sizeof(float));
  cudaMalloc(&C1, m * n * sizeof(float));
  cudaMalloc(&C2, m * n * sizeof(float));
  cudaMemcpy(Ah, hh.data(), m * k * sizeof(__half), cudaMemcpyHostToDevice);
  cudaMemcpy(Bh, hh.data(), n * k * sizeof(__half), cudaMemcpyHostToDevice);
  cudaMemcpy(Af, hf.data(), m * k * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(Bf, hf.data(), n * k * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemset(C1, 0, m * n * sizeof(float));
  cudaMemset(C2, 0, m * n * sizeof(float));
  set_epilogue(EpilogueParams{1.f, 0.f, -1e30f, 1e30f, 1});
  gemm_tensorcore(m, n, k, Ah, k, Bh, k, C1, m, 0);
  gemm_fma(m, n, k, Af, k, Bf, k, C2, m, 0);
  float c1, c2;
  cudaMemcpy(&c1, C1, sizeof c1, cudaMemcpyDeviceToHost);
  cudaMemcpy(&c2, C2, sizeof c2, cudaMemcpyDeviceToHost);
  printf("tc %f fma %f (expect %f), %llu tiles\n", c1, c2, 0.25f * k, tiles_done());
  return 0;
}
