#include "gemm_desc.cuh"

__global__ void tileGemmKernel(const float *a, const float *b, float *c, const float *bias,
                               float alpha, float beta) {
  extern __shared__ __align__(16) char smem[];
  const int tile = blockIdx.x;
  const float *ga = a + tile * 32 * 32;
  const float *gb = b + tile * 32 * 32;
  float *gc = c + tile * 32 * 32;

  auto a_global = cublasdx::make_tensor(ga, TileGemm::get_layout_gmem_a());
  auto b_global = cublasdx::make_tensor(gb, TileGemm::get_layout_gmem_b());
  auto c_global = cublasdx::make_tensor(gc, TileGemm::get_layout_gmem_c());

  auto [sa, sb, sc] = cublasdx::slice_shared_memory<TileGemm>(smem);
  auto a_shared = cublasdx::make_tensor(sa, TileGemm::get_layout_smem_a());
  auto b_shared = cublasdx::make_tensor(sb, TileGemm::get_layout_smem_b());
  auto c_shared = cublasdx::make_tensor(sc, TileGemm::get_layout_smem_c());

  using align = cublasdx::alignment_of<TileGemm>;
  cublasdx::copy<TileGemm, align::a>(a_global, a_shared);
  cublasdx::copy<TileGemm, align::b>(b_global, b_shared);
  cublasdx::copy<TileGemm, align::c>(c_global, c_shared);
  cublasdx::copy_wait();

  TileGemm().execute(alpha, a_shared, b_shared, beta, c_shared);
  __syncthreads();

  apply_epilogue(sc, bias, 32, 32);
  __syncthreads();
  cublasdx::copy<TileGemm, align::c>(c_shared, c_global);
}

unsigned tileGemmSmemBytes() { return cublasdx::get_shared_storage_size<TileGemm>(); }
