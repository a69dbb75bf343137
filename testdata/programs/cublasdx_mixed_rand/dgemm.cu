// Double-precision block GEMM on 32x32x16 tiles, and the host driver (compiled, not run).
#include <cstdio>
#include <vector>
#include "dx.cuh"

__global__ void dgemmKernel(const double *a, const double *b, double *c, double alpha) {
  extern __shared__ __align__(16) char smem[];
  const int tile = blockIdx.x;
  auto a_global = cublasdx::make_tensor(a + tile * 32 * 16, DGemm::get_layout_gmem_a());
  auto b_global = cublasdx::make_tensor(b + tile * 16 * 32, DGemm::get_layout_gmem_b());
  auto c_global = cublasdx::make_tensor(c + tile * 32 * 32, DGemm::get_layout_gmem_c());
  auto [sa, sb, sc] = cublasdx::slice_shared_memory<DGemm>(smem);
  auto a_shared = cublasdx::make_tensor(sa, DGemm::get_layout_smem_a());
  auto b_shared = cublasdx::make_tensor(sb, DGemm::get_layout_smem_b());
  auto c_shared = cublasdx::make_tensor(sc, DGemm::get_layout_smem_c());
  using align = cublasdx::alignment_of<DGemm>;
  cublasdx::copy<DGemm, align::a>(a_global, a_shared);
  cublasdx::copy<DGemm, align::b>(b_global, b_shared);
  cublasdx::copy_wait();
  DGemm().execute(alpha, a_shared, b_shared, 0.0, c_shared);
  __syncthreads();
  cublasdx::copy<DGemm, align::c>(c_shared, c_global);
}

unsigned dgemmSmem() { return cublasdx::get_shared_storage_size<DGemm>(); }

int main() {
  const int tiles = 8;
  __half *ah, *bh;
  float *ch;
  double *ad, *bd, *cd;
  cudaMalloc(&ah, tiles * 64 * 32 * sizeof(__half));
  cudaMalloc(&bh, tiles * 32 * 64 * sizeof(__half));
  cudaMalloc(&ch, tiles * 64 * 64 * sizeof(float));
  cudaMalloc(&ad, tiles * 32 * 16 * sizeof(double));
  cudaMalloc(&bd, tiles * 16 * 32 * sizeof(double));
  cudaMalloc(&cd, tiles * 32 * 32 * sizeof(double));
  fillHalfUniform<<<16, 128>>>(ah, tiles * 64 * 32, 1ull);
  fillHalfUniform<<<16, 128>>>(bh, tiles * 32 * 64, 2ull);
  fillDoubleNormal<<<16, 128>>>(ad, tiles * 32 * 16, 3ull);
  fillDoubleNormal<<<16, 128>>>(bd, tiles * 16 * 32, 4ull);
  cudaMemset(ch, 0, tiles * 64 * 64 * sizeof(float));
  set_epilogue(Epilogue{0.5f, 0.1f, 0.01f});
  unsigned hs = hgemmSmem(), ds = dgemmSmem();
  cudaFuncSetAttribute(hgemmKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, hs);
  hgemmKernel<<<tiles, HGemm::block_dim, hs>>>(ah, bh, ch);
  dgemmKernel<<<tiles, DGemm::block_dim, ds>>>(ad, bd, cd, 1.0);
  std::vector<float> h(4);
  cudaMemcpy(h.data(), ch, 4 * sizeof(float), cudaMemcpyDeviceToHost);
  double d0;
  cudaMemcpy(&d0, cd, sizeof d0, cudaMemcpyDeviceToHost);
  printf("%f %f %f\n", h[0], h[1], d0);
  return 0;
}
