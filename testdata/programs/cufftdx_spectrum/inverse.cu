#include <cstdio>
#include <vector>
#include "fft_types.cuh"

__global__ void inverse_fft(const cplx *spec, cplx *out) {
  extern __shared__ __align__(alignof(float4)) unsigned char smem[];
  cplx reg[FftInv::storage_size];
  load_signal<FftInv>(spec, reg);
  FftInv().execute(reg, reinterpret_cast<cplx *>(smem));
  store_signal<FftInv>(out, reg, 1.0f / cufftdx::size_of<FftInv>::value);
}

int main() {
  const int batches = 64, n = 256 * batches;
  std::vector<cplx> h(n);
  for (int i = 0; i < n; ++i) h[i] = cplx{float(i % 17), 0.f};
  cplx *a, *b;
  cudaMalloc(&a, n * sizeof(cplx));
  cudaMalloc(&b, n * sizeof(cplx));
  cudaMemcpy(a, h.data(), n * sizeof(cplx), cudaMemcpyHostToDevice);
  cudaFuncSetAttribute(forward_and_filter, cudaFuncAttributeMaxDynamicSharedMemorySize,
                       FftFwd::shared_memory_size);
  forward_and_filter<<<batches / FftFwd::ffts_per_block, FftFwd::block_dim,
                       FftFwd::shared_memory_size>>>(a, b);
  inverse_fft<<<batches / FftInv::ffts_per_block, FftInv::block_dim, FftInv::shared_memory_size>>>(b, a);
  cudaMemcpy(h.data(), a, n * sizeof(cplx), cudaMemcpyDeviceToHost);
  printf("%f %f\n", h[1].x, h[1].y);
  return 0;
}
