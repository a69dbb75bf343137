// Sm80 tensor-op GEMM, 128x128x32 threadblock, 64x64x32 warps, 16x8x16 instructions, three
// stages, with the GELU epilogue functor of ops.h.
#include <cutlass/gemm/device/gemm.h>
#include "ops.h"

using RowMajor = cutlass::layout::RowMajor;
using ColumnMajor = cutlass::layout::ColumnMajor;
using Epilogue = LinearCombinationGeluExt<float, 128 / cutlass::sizeof_bits<float>::value>;
using GemmTc = cutlass::gemm::device::Gemm<
    cutlass::half_t, RowMajor, cutlass::half_t, ColumnMajor, float, RowMajor, float,
    cutlass::arch::OpClassTensorOp, cutlass::arch::Sm80, cutlass::gemm::GemmShape<128, 128, 32>,
    cutlass::gemm::GemmShape<64, 64, 32>, cutlass::gemm::GemmShape<16, 8, 16>, Epilogue,
    cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<>, 3>;

cudaError_t gemm_tc_gelu(int m, int n, int k, float alpha, cutlass::half_t const *A,
                         cutlass::half_t const *B, float beta, float const *C, float *D,
                         cudaStream_t stream) {
  GemmTc gemm;
  GemmTc::Arguments args({m, n, k}, {A, k}, {B, k}, {C, n}, {D, n}, {alpha, beta});
  if (gemm.can_implement(args) != cutlass::Status::kSuccess) return cudaErrorInvalidValue;
  cutlass::Status s = gemm.initialize(args, nullptr, stream);
  if (s == cutlass::Status::kSuccess) s = gemm(stream);
  return s == cutlass::Status::kSuccess ? cudaSuccess : cudaErrorUnknown;
}
