#include "fft_types.cuh"

__global__ void forward_and_filter(const cplx *in, cplx *spec) {
  extern __shared__ __align__(alignof(float4)) unsigned char smem[];
  cplx reg[FftFwd::storage_size];
  load_signal<FftFwd>(in, reg);
  FftFwd().execute(reg, reinterpret_cast<cplx *>(smem));
  unsigned idx = threadIdx.x;
  for (unsigned i = 0; i < FftFwd::elements_per_thread; ++i) {
    float g = lowpass_gain(idx, cufftdx::size_of<FftFwd>::value);
    reg[i] = cplx{reg[i].x * g, reg[i].y * g};
    idx += FftFwd::stride;
  }
  store_signal<FftFwd>(spec, reg, 1.0f);
}
