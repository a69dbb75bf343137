// Block C2R FFT back to real samples, normalised; and the host driver (compiled, not run).
#include <cstdio>
#include <vector>
#include "conv.cuh"

__global__ void inverseReal(const cplx *spectrum, float *signal) {
  extern __shared__ __align__(16) unsigned char smem[];
  using complex_type = typename C2R::value_type;
  complex_type reg[C2R::storage_size];
  const unsigned fft = blockIdx.x * C2R::ffts_per_block + threadIdx.y;
  for (unsigned i = 0; i < C2R::input_ept; ++i) {
    unsigned bin = threadIdx.x + i * C2R::stride;
    if (bin < C2R::input_length) reg[i] = spectrum[fft * kBins + bin];
  }
  C2R().execute(reg, reinterpret_cast<complex_type *>(smem));
  auto *real_out = reinterpret_cast<typename C2R::output_type *>(reg);
  for (unsigned i = 0; i < C2R::output_ept; ++i) {
    unsigned idx = threadIdx.x + i * C2R::stride;
    if (idx < C2R::output_length) signal[fft * kN + idx] = real_out[i] * (1.f / kN);
  }
}

int main() {
  const int signals = 128;
  std::vector<float> h(signals * kN), taps(kTaps, 1.f / kTaps);
  for (size_t i = 0; i < h.size(); ++i) h[i] = float((i * 37) % 101) / 101.f;
  float *sig, *dtaps;
  cplx *spec;
  cudaMalloc(&sig, h.size() * sizeof(float));
  cudaMalloc(&dtaps, kTaps * sizeof(float));
  cudaMalloc(&spec, signals * kBins * sizeof(cplx));
  cudaMemcpy(sig, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(dtaps, taps.data(), kTaps * sizeof(float), cudaMemcpyHostToDevice);
  buildFilter<<<2, 128>>>(dtaps);
  cudaFuncSetAttribute(forwardFiltered, cudaFuncAttributeMaxDynamicSharedMemorySize,
                       R2C::shared_memory_size);
  forwardFiltered<<<signals / R2C::ffts_per_block, R2C::block_dim, R2C::shared_memory_size>>>(sig, spec);
  cudaFuncSetAttribute(inverseReal, cudaFuncAttributeMaxDynamicSharedMemorySize,
                       C2R::shared_memory_size);
  inverseReal<<<signals / C2R::ffts_per_block, C2R::block_dim, C2R::shared_memory_size>>>(spec, sig);
  cudaMemcpy(h.data(), sig, h.size() * sizeof(float), cudaMemcpyDeviceToHost);
  printf("%f %f\n", h[0], h[1]);
  return 0;
}
