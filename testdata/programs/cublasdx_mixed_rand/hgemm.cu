// Mixed-precision block GEMM, one 64x64 tile of C per block, then the epilogue in shared
// memory before the tile goes back to global memory.
#include "dx.cuh"

__global__ void hgemmKernel(const __half *a, const __half *b, float *c) {
  extern __shared__ __align__(16) char smem[];
  const int tile = blockIdx.x;
  auto a_global = cublasdx::make_tensor(a + tile * 64 * 32, HGemm::get_layout_gmem_a());
  auto b_global = cublasdx::make_tensor(b + tile * 32 * 64, HGemm::get_layout_gmem_b());
  auto c_global = cublasdx::make_tensor(c + tile * 64 * 64, HGemm::get_layout_gmem_c());
  auto [sa, sb, sc] = cublasdx::slice_shared_memory<HGemm>(smem);
  auto a_shared = cublasdx::make_tensor(sa, HGemm::get_layout_smem_a());
  auto b_shared = cublasdx::make_tensor(sb, HGemm::get_layout_smem_b());
  auto c_shared = cublasdx::make_tensor(sc, HGemm::get_layout_smem_c());
  using align = cublasdx::alignment_of<HGemm>;
  cublasdx::copy<HGemm, align::a>(a_global, a_shared);
  cublasdx::copy<HGemm, align::b>(b_global, b_shared);
  cublasdx::copy<HGemm, align::c>(c_global, c_shared);
  cublasdx::copy_wait();
  HGemm().execute(1.0f, a_shared, b_shared, 0.0f, c_shared);
  __syncthreads();
  epilogue_tile(sc, 64 * 64);
  __syncthreads();
  cublasdx::copy<HGemm, align::c>(c_shared, c_global);
}

unsigned hgemmSmem() { return cublasdx::get_shared_storage_size<HGemm>(); }
