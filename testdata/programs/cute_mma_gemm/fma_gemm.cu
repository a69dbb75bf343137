// CuTe FMA fallback GEMM (TN, float): 64x64x8 CTA tiles, a 16x16 UniversalFMA tiled MMA fed
// straight from shared memory, AutoVectorizing tiled copies from global memory.
#include <cute/tensor.hpp>
#include "gemm_api.cuh"

using namespace cute;

template <class CtaTiler, class SmemLayout, class Copy, class TiledMma>
__global__ void fma_gemm_kernel(int m, int n, int k, CtaTiler cta_tiler, float const *A, int lda,
                                float const *B, int ldb, SmemLayout s_layout, Copy tcopy,
                                float *C, int ldc, TiledMma mma) {
  Tensor mA = make_tensor(make_gmem_ptr(A), make_shape(m, k), make_stride(lda, Int<1>{}));
  Tensor mB = make_tensor(make_gmem_ptr(B), make_shape(n, k), make_stride(ldb, Int<1>{}));
  Tensor mC = make_tensor(make_gmem_ptr(C), make_shape(m, n), make_stride(Int<1>{}, ldc));
  auto cta_coord = make_coord(blockIdx.x, blockIdx.y, _);
  Tensor gA = local_tile(mA, cta_tiler, cta_coord, Step<_1, X, _1>{});
  Tensor gB = local_tile(mB, cta_tiler, cta_coord, Step<X, _1, _1>{});
  Tensor gC = local_tile(mC, cta_tiler, cta_coord, Step<_1, _1, X>{});

  __shared__ float smemA[cosize_v<SmemLayout>];
  __shared__ float smemB[cosize_v<SmemLayout>];
  Tensor sA = make_tensor(make_smem_ptr(smemA), s_layout);
  Tensor sB = make_tensor(make_smem_ptr(smemB), s_layout);

  ThrCopy thr_copy = tcopy.get_slice(threadIdx.x);
  Tensor tAgA = thr_copy.partition_S(gA);
  Tensor tAsA = thr_copy.partition_D(sA);
  Tensor tBgB = thr_copy.partition_S(gB);
  Tensor tBsB = thr_copy.partition_D(sB);

  ThrMMA thr_mma = mma.get_slice(threadIdx.x);
  Tensor tCsA = thr_mma.partition_A(sA);
  Tensor tCsB = thr_mma.partition_B(sB);
  Tensor tCgC = thr_mma.partition_C(gC);
  Tensor tCrC = thr_mma.make_fragment_C(tCgC);
  clear(tCrC);

  for (int kt = 0; kt < size<3>(tAgA); ++kt) {
    copy(tcopy, tAgA(_, _, _, kt), tAsA);
    copy(tcopy, tBgB(_, _, _, kt), tBsB);
    __syncthreads();
    gemm(mma, tCsA, tCsB, tCrC);
    __syncthreads();
  }
  for (int i = 0; i < size(tCrC); ++i) tCgC(i) = epilogue_apply(tCrC(i), tCgC(i));
  epilogue_tile_done(threadIdx.x);
}

void gemm_fma(int m, int n, int k, const float *A, int lda, const float *B, int ldb, float *C,
              int ldc, cudaStream_t stream) {
  auto tiler = make_shape(Int<64>{}, Int<64>{}, Int<8>{});
  auto s_layout = make_layout(make_shape(Int<64>{}, Int<8>{}), LayoutRight{});
  TiledCopy tcopy = make_tiled_copy(Copy_Atom<UniversalCopy<float>, float>{},
                                    Layout<Shape<_32, _8>, Stride<_8, _1>>{},
                                    Layout<Shape<_1, _1>>{});
  TiledMMA mma = make_tiled_mma(UniversalFMA<float, float, float>{},
                                Layout<Shape<_16, _16, _1>>{});
  dim3 grid((m + 63) / 64, (n + 63) / 64);
  fma_gemm_kernel<<<grid, 256, 0, stream>>>(m, n, k, tiler, A, lda, B, ldb, s_layout, tcopy, C,
                                            ldc, mma);
}
