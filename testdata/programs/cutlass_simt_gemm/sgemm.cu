#include <cutlass/gemm/device/gemm.h>
#include "api.h"

using ColumnMajor = cutlass::layout::ColumnMajor;
using CutlassSgemm = cutlass::gemm::device::Gemm<float, ColumnMajor, float, ColumnMajor, float,
                                                 ColumnMajor>;

cudaError_t SgemmNN(int m, int n, int k, float alpha, const float *A, int lda, const float *B,
                    int ldb, float beta, float *C, int ldc) {
  CutlassSgemm gemm;
  CutlassSgemm::Arguments args({m, n, k}, {A, lda}, {B, ldb}, {C, ldc}, {C, ldc}, {alpha, beta});
  cutlass::Status status = gemm(args);
  return status == cutlass::Status::kSuccess ? cudaSuccess : cudaErrorUnknown;
}
