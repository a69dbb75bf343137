// Host driver: tensor-op GELU GEMM, then the split-K SIMT GEMM on float copies, then the
// column reduction. Compiled, not run.
#include <cstdio>
#include <vector>
#include "ops.h"

int main() {
  const int m = 256, n = 256, k = 512;
  std::vector<cutlass::half_t> hh(m * k, cutlass::half_t(0.25f));
  std::vector<float> hf(m * k, 0.25f);
  cutlass::half_t *A, *B;
  float *Af, *Bf, *C, *D;
  cudaMalloc(&A, m * k * sizeof(cutlass::half_t));
  cudaMalloc(&B, k * n * sizeof(cutlass::half_t));
  cudaMalloc(&Af, m * k * sizeof(float));
  cudaMalloc(&Bf, k * n * sizeof(float));
  cudaMalloc(&C, m * n * sizeof(float));
  cudaMalloc(&D, m * n * sizeof(float));
  cudaMemcpy(A, hh.data(), m * k * sizeof(cutlass::half_t), cudaMemcpyHostToDevice);
  cudaMemcpy(B, hh.data(), k * n * sizeof(cutlass::half_t), cudaMemcpyHostToDevice);
  cudaMemcpy(Af, hf.data(), m * k * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(Bf, hf.data(), k * n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemset(C, 0, m * n * sizeof(float));
  cudaError_t e1 = gemm_tc_gelu(m, n, k, 1.f, A, B, 0.f, C, D, 0);
  size_t ws_bytes = 0;
  void *ws = nullptr;
  gemm_splitk(m, n, k, 4, Af, Bf, C, nullptr, &ws_bytes);
  cudaMalloc(&ws, ws_bytes);
  cudaError_t e2 = gemm_splitk(m, n, k, 4, Af, Bf, C, ws, &ws_bytes);
  reduce_columns(D, m, n, 0);
  float d0, c0;
  cudaMemcpy(&d0, D, sizeof d0, cudaMemcpyDeviceToHost);
  cudaMemcpy(&c0, C, sizeof c0, cudaMemcpyDeviceToHost);
  printf("%s %s D[0]=%f C[0]=%f\n", cudaGetErrorString(e1), cudaGetErrorString(e2), d0, c0);
  return 0;
}
