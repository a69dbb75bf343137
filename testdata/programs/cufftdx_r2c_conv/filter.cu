// The filter spectrum: each thread runs a 16-point thread-level FFT of the (windowed) taps
// and interpolates it onto the kBins bins it owns of the __device__ table.
#include "conv.cuh"

__device__ cplx g_filter[kBins];

__device__ cplx filter_at(unsigned bin) { return g_filter[bin < kBins ? bin : kBins - 1]; }

__global__ void buildFilter(const float *taps) {
  cplx reg[TapsFFT::storage_size];
  for (unsigned i = 0; i < kTaps; ++i) {
    float w = 0.5f - 0.5f * cospif(2.f * i / (kTaps - 1));
    reg[i] = cplx{taps[i] * w, 0.f};
  }
  TapsFFT().execute(reg);
  for (unsigned bin = blockIdx.x * blockDim.x + threadIdx.x; bin < kBins;
       bin += gridDim.x * blockDim.x) {
    float pos = float(bin) * kTaps / kN;
    unsigned lo = unsigned(pos) % kTaps, hi = (lo + 1) % kTaps;
    float f = pos - floorf(pos);
    cplx a = reg[lo], b = reg[hi];
    g_filter[bin] = cplx{a.x + f * (b.x - a.x), a.y + f * (b.y - a.y)};
  }
}
