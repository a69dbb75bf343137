#pragma once
#include <cstdint>

constexpr int kWarpsPerBlock = 6;
constexpr int kHistThreads = kWarpsPerBlock * 32;
constexpr int kPartials = 240;

__device__ unsigned bin_of(uint8_t byte, int bins);  // binning.cu

template <int BINS>
__global__ void histo_partial(const uint4 *data, int words, unsigned *partials) {
  __shared__ unsigned sub[kWarpsPerBlock][BINS];
  for (int i = threadIdx.x; i < kWarpsPerBlock * BINS; i += blockDim.x)
    (&sub[0][0])[i] = 0;
  __syncthreads();
  unsigned *mine = sub[threadIdx.x / 32];
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < words; i += blockDim.x * gridDim.x) {
    uint4 w = data[i];
    unsigned parts[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
    for (int p = 0; p < 4; ++p)
#pragma unroll
      for (int b = 0; b < 4; ++b) atomicAdd(&mine[bin_of((parts[p] >> (8 * b)) & 0xff, BINS)], 1u);
  }
  __syncthreads();
  for (int bin = threadIdx.x; bin < BINS; bin += blockDim.x) {
    unsigned s = 0;
    for (int w = 0; w < kWarpsPerBlock; ++w) s += sub[w][bin];
    partials[blockIdx.x * BINS + bin] = s;
  }
}

template <int BINS>
__global__ void histo_merge(const unsigned *partials, unsigned *histo, int count);

void histogram256(const uint4 *d, int words, unsigned *partials, unsigned *out);
void histogram64(const uint4 *d, int words, unsigned *partials, unsigned *out);
