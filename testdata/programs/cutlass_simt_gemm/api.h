#pragma once
#include <cuda_runtime.h>

cudaError_t SgemmNN(int m, int n, int k, float alpha, const float *A, int lda, const float *B,
                    int ldb, float beta, float *C, int ldc);
void TransposeCute(const float *in, float *out, int rows, int cols);
