#include <cstdio>
#include <vector>
#include "api.h"

int main() {
  const int m = 256, n = 256, k = 128;
  std::vector<float> h(m * k, 1.0f);
  float *A, *B, *C, *Ct;
  cudaMalloc(&A, m * k * sizeof(float));
  cudaMalloc(&B, k * n * sizeof(float));
  cudaMalloc(&C, m * n * sizeof(float));
  cudaMalloc(&Ct, m * n * sizeof(float));
  cudaMemcpy(A, h.data(), m * k * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(B, h.data(), k * n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemset(C, 0, m * n * sizeof(float));
  cudaError_t e = SgemmNN(m, n, k, 1.0f, A, m, B, k, 0.0f, C, m);
  TransposeCute(C, Ct, m, n);
  float c0;
  cudaMemcpy(&c0, Ct, sizeof c0, cudaMemcpyDeviceToHost);
  printf("%s C[0]=%f (expect %d)\n", cudaGetErrorString(e), c0, k);
  return 0;
}
