// CuTe tensor-core GEMM (TN, half in, float accumulate): 128x128x32 CTA tiles, a 2x2 grid of
// SM80 16x8x16 MMA atoms tiled to 32x32x16, cp.async 128-bit tiled copies into K-major shared
// tiles padded by 8 halves, fragments loaded from shared memory before each k-block.
#include <cute/tensor.hpp>
#include "gemm_api.cuh"

using namespace cute;

template <class CtaTiler, class SmemLayoutA, class SmemLayoutB, class CopyA, class CopyB,
          class TiledMma>
__global__ void __launch_bounds__(128)
tc_gemm_kernel(int m, int n, int k, CtaTiler cta_tiler, half_t const *A, int lda,
               SmemLayoutA sA_layout, CopyA copy_a, half_t const *B, int ldb,
               SmemLayoutB sB_layout, CopyB copy_b, float *C, int ldc, TiledMma mma) {
  Tensor mA = make_tensor(make_gmem_ptr(A), make_shape(m, k), make_stride(lda, Int<1>{}));
  Tensor mB = make_tensor(make_gmem_ptr(B), make_shape(n, k), make_stride(ldb, Int<1>{}));
  Tensor mC = make_tensor(make_gmem_ptr(C), make_shape(m, n), make_stride(Int<1>{}, ldc));

  auto cta_coord = make_coord(blockIdx.x, blockIdx.y, _);
  Tensor gA = local_tile(mA, cta_tiler, cta_coord, Step<_1, X, _1>{});  // (BM,BK,k)
  Tensor gB = local_tile(mB, cta_tiler, cta_coord, Step<X, _1, _1>{});  // (BN,BK,k)
  Tensor gC = local_tile(mC, cta_tiler, cta_coord, Step<_1, _1, X>{});  // (BM,BN)

  __shared__ alignas(128) half_t smemA[cosize_v<SmemLayoutA>];
  __shared__ alignas(128) half_t smemB[cosize_v<SmemLayoutB>];
  Tensor sA = make_tensor(make_smem_ptr(smemA), sA_layout);
  Tensor sB = make_tensor(make_smem_ptr(smemB), sB_layout);

  ThrCopy thr_a = copy_a.get_slice(threadIdx.x);
  Tensor tAgA = thr_a.partition_S(gA);
  Tensor tAsA = thr_a.partition_D(sA);
  ThrCopy thr_b = copy_b.get_slice(threadIdx.x);
  Tensor tBgB = thr_b.partition_S(gB);
  Tensor tBsB = thr_b.partition_D(sB);

  ThrMMA thr_mma = mma.get_slice(threadIdx.x);
  Tensor tCsA = thr_mma.partition_A(sA);
  Tensor tCsB = thr_mma.partition_B(sB);
  Tensor tCgC = thr_mma.partition_C(gC);
  Tensor tCrA = thr_mma.partition_fragment_A(sA);
  Tensor tCrB = thr_mma.partition_fragment_B(sB);
  Tensor tCrC = thr_mma.make_fragment_C(tCgC);
  clear(tCrC);

  const int k_tiles = size<3>(tAgA);
  for (int kt = 0; kt < k_tiles; ++kt) {
    copy(copy_a, tAgA(_, _, _, kt), tAsA);
    copy(copy_b, tBgB(_, _, _, kt), tBsB);
    cp_async_fence();
    cp_async_wait<0>();
    __syncthreads();
    CUTE_UNROLL
    for (int kb = 0; kb < size<2>(tCrA); ++kb) {
      copy(tCsA(_, _, kb), tCrA(_, _, kb));
      copy(tCsB(_, _, kb), tCrB(_, _, kb));
      gemm(mma, tCrA(_, _, kb), tCrB(_, _, kb), tCrC);
    }
    __syncthreads();
  }

  CUTE_UNROLL
  for (int i = 0; i < size(tCrC); ++i) tCgC(i) = epilogue_apply(tCrC(i), tCgC(i));
  epilogue_tile_done(threadIdx.x);
}

void gemm_tensorcore(int m, int n, int k, const __half *A, int lda, const __half *B, int ldb,
                     float *C, int ldc, cudaStream_t stream) {
  auto bM = Int<128>{};
  auto bN = Int<128>{};
  auto bK = Int<32>{};
  auto cta_tiler = make_shape(bM, bN, bK);
  // K-major shared tiles, rows padded to 40 halves (80 bytes: 16-byte aligned for cp.async).
  auto sA = make_layout(make_shape(bM, bK), make_stride(Int<40>{}, Int<1>{}));
  auto sB = make_layout(make_shape(bN, bK), make_stride(Int<40>{}, Int<1>{}));
  // 128 threads, 4 along K x 32 along M/N, 8 halves (128 bits) each.
  TiledCopy copyA = make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEALWAYS<uint128_t>, half_t>{},
                                    Layout<Shape<_32, _4>, Stride<_4, _1>>{},
                                    Layout<Shape<_1, _8>>{});
  TiledCopy copyB = make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEALWAYS<uint128_t>, half_t>{},
                                    Layout<Shape<_32, _4>, Stride<_4, _1>>{},
                                    Layout<Shape<_1, _8>>{});
  TiledMMA mma = make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN{}, Layout<Shape<_2, _2, _1>>{},
                                Tile<_32, _32, _16>{});
  dim3 block(size(mma));
  dim3 grid(size(ceil_div(m, bM)), size(ceil_div(n, bN)));
  tc_gemm_kernel<<<grid, block, 0, stream>>>(
      m, n, k, cta_tiler, reinterpret_cast<half_t const *>(A), lda, sA, copyA,
      reinterpret_cast<half_t const *>(B), ldb, sB, copyB, C, ldc, mma);
}
