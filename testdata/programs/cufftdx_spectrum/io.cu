#include "fft_types.cuh"

template <class FFT>
__device__ void load_signal(const cplx *in, cplx (&reg)[FFT::storage_size]) {
  const unsigned base = (blockIdx.x * FFT::ffts_per_block + threadIdx.y) * cufftdx::size_of<FFT>::value;
  const unsigned stride = FFT::stride;
  unsigned idx = threadIdx.x;
  for (unsigned i = 0; i < FFT::elements_per_thread; ++i) {
    if (idx < cufftdx::size_of<FFT>::value) reg[i] = in[base + idx];
    idx += stride;
  }
}

template <class FFT>
__device__ void store_signal(cplx *out, const cplx (&reg)[FFT::storage_size], float scale) {
  const unsigned base = (blockIdx.x * FFT::ffts_per_block + threadIdx.y) * cufftdx::size_of<FFT>::value;
  unsigned idx = threadIdx.x;
  for (unsigned i = 0; i < FFT::elements_per_thread; ++i) {
    if (idx < cufftdx::size_of<FFT>::value) out[base + idx] = cplx{reg[i].x * scale, reg[i].y * scale};
    idx += FFT::stride;
  }
}

__device__ float lowpass_gain(unsigned bin, unsigned size) {
  unsigned f = bin < size / 2 ? bin : size - bin;
  return f < size / 8 ? 1.0f : 0.0f;
}

template __device__ void load_signal<FftFwd>(const cplx *, cplx (&)[FftFwd::storage_size]);
template __device__ void load_signal<FftInv>(const cplx *, cplx (&)[FftInv::storage_size]);
template __device__ void store_signal<FftFwd>(cplx *, const cplx (&)[FftFwd::storage_size], float);
template __device__ void store_signal<FftInv>(cplx *, const cplx (&)[FftInv::storage_size], float);
