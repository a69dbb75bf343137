// Declarations shared by the CUTLASS tensor-op / split-K program.
#pragma once
#include <cuda_runtime.h>
#include <cutlass/cutlass.h>
#include <cutlass/numeric_types.h>
#include <cutlass/epilogue/thread/linear_combination.h>

// activations.cu
__device__ float gelu_tanh(float x);
extern __device__ float g_column_sums[1024];
extern __device__ unsigned g_reduced_columns;

// A LinearCombination followed by a GELU, the activation defined in activations.cu.
template <typename ElementOutput, int Count, typename ElementAccumulator = float>
class LinearCombinationGeluExt
    : public cutlass::epilogue::thread::LinearCombination<ElementOutput, Count,
                                                           ElementAccumulator, float> {
  using Base = cutlass::epilogue::thread::LinearCombination<ElementOutput, Count,
                                                            ElementAccumulator, float>;

 public:
  using typename Base::FragmentAccumulator;
  using typename Base::FragmentOutput;
  using typename Base::FragmentSource;
  using typename Base::Params;
  static bool const kIsHeavy = true;

  CUTLASS_HOST_DEVICE explicit LinearCombinationGeluExt(Params const &p) : Base(p) {}
  CUTLASS_HOST_DEVICE explicit LinearCombinationGeluExt(Params const &p, int group) : Base(p, group) {}

  CUTLASS_DEVICE FragmentOutput operator()(FragmentAccumulator const &acc,
                                           FragmentSource const &src) const {
    FragmentOutput out = Base::operator()(acc, src);
    CUTLASS_PRAGMA_UNROLL
    for (int i = 0; i < Count; ++i) out[i] = ElementOutput(gelu_tanh(float(out[i])));
    return out;
  }
  CUTLASS_DEVICE FragmentOutput operator()(FragmentAccumulator const &acc) const {
    FragmentOutput out = Base::operator()(acc);
    CUTLASS_PRAGMA_UNROLL
    for (int i = 0; i < Count; ++i) out[i] = ElementOutput(gelu_tanh(float(out[i])));
    return out;
  }
};

// gemm_tc.cu: D = gelu(alpha * A * B + beta * C), A row-major MxK half, B column-major KxN
// half, C/D row-major MxN float.
cudaError_t gemm_tc_gelu(int m, int n, int k, float alpha, cutlass::half_t const *A,
                         cutlass::half_t const *B, float beta, float const *C, float *D,
                         cudaStream_t stream);
// splitk.cu: float SIMT GEMM with parallel split-K (row-major A, column-major B, row-major C).
cudaError_t gemm_splitk(int m, int n, int k, int slices, float const *A, float const *B,
                        float *C, void *workspace, size_t *workspace_bytes);
// activations.cu: column sums of a row-major MxN matrix into g_column_sums.
void reduce_columns(float const *D, int m, int n, cudaStream_t stream);
