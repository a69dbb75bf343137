#include "histo.cuh"

__device__ unsigned bin_of(uint8_t byte, int bins) { return byte * bins >> 8; }

template <int BINS>
__global__ void histo_merge(const unsigned *partials, unsigned *histo, int count) {
  __shared__ unsigned acc[256];
  unsigned s = 0;
  for (int i = threadIdx.x; i < count; i += blockDim.x) s += partials[i * BINS + blockIdx.x];
  acc[threadIdx.x] = s;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride) acc[threadIdx.x] += acc[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) histo[blockIdx.x] = acc[0];
}

template __global__ void histo_merge<256>(const unsigned *, unsigned *, int);
template __global__ void histo_merge<64>(const unsigned *, unsigned *, int);
