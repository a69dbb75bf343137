#include "histo.cuh"

__managed__ unsigned long long mPixelsSeen = 0;
__device__ unsigned int gHist[CHANNELS][BINS];

__device__ void accumulatePixel(unsigned int *sh, uchar4 p) {
  atomicAdd_block(&sh[p.x], 1u);
  atomicAdd_block(&sh[BINS + p.y], 1u);
  atomicAdd_block(&sh[2 * BINS + p.z], 1u);
}

__device__ void flushBins(const unsigned int *sh) {
  for (int i = threadIdx.x; i < CHANNELS * BINS; i += blockDim.x) {
    unsigned v = sh[i];
    if (v) atomicAdd(&gHist[i / BINS][i % BINS], v);
  }
}
