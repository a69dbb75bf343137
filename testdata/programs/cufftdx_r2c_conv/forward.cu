// Block R2C FFT of real signals (input_ept reals per thread), filtered bin by bin.
#include "conv.cuh"

__global__ void forwardFiltered(const float *signal, cplx *spectrum) {
  extern __shared__ __align__(16) unsigned char smem[];
  using complex_type = typename R2C::value_type;
  complex_type reg[R2C::storage_size];
  const unsigned fft = blockIdx.x * R2C::ffts_per_block + threadIdx.y;
  auto *real_in = reinterpret_cast<typename R2C::input_type *>(reg);
  for (unsigned i = 0; i < R2C::input_ept; ++i) {
    unsigned idx = threadIdx.x + i * R2C::stride;
    if (idx < R2C::input_length) real_in[i] = signal[fft * kN + idx];
  }
  R2C().execute(reg, reinterpret_cast<complex_type *>(smem));
  for (unsigned i = 0; i < R2C::output_ept; ++i) {
    unsigned bin = threadIdx.x + i * R2C::stride;
    if (bin < R2C::output_length) {
      cplx h = filter_at(bin), x = reg[i];
      spectrum[fft * kBins + bin] = cplx{x.x * h.x - x.y * h.y, x.x * h.y + x.y * h.x};
    }
  }
}
