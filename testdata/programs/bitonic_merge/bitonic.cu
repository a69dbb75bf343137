#include "sortnet.h"

__global__ void bitonicTileKernel(unsigned *keys, unsigned *vals, int up) {
  __shared__ unsigned sKey[SORT_TILE];
  __shared__ unsigned sVal[SORT_TILE];
  __shared__ int sSwaps[SORT_THREADS / 32];
  unsigned *k = keys + blockIdx.x * SORT_TILE;
  unsigned *v = vals + blockIdx.x * SORT_TILE;
  sKey[threadIdx.x] = k[threadIdx.x];
  sVal[threadIdx.x] = v[threadIdx.x];
  sKey[threadIdx.x + SORT_TILE / 2] = k[threadIdx.x + SORT_TILE / 2];
  sVal[threadIdx.x + SORT_TILE / 2] = v[threadIdx.x + SORT_TILE / 2];
  if (threadIdx.x < SORT_THREADS / 32) sSwaps[threadIdx.x] = 0;
  for (int size = 2; size <= SORT_TILE; size <<= 1) {
    bool dir = up ^ ((threadIdx.x & (size / 2)) != 0);
    for (int stride = size / 2; stride > 0; stride >>= 1) {
      __syncthreads();
      int pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
      cmpSwap(sKey[pos], sVal[pos], sKey[pos + stride], sVal[pos + stride], dir);
    }
  }
  __syncthreads();
  k[threadIdx.x] = sKey[threadIdx.x];
  v[threadIdx.x] = sVal[threadIdx.x];
  k[threadIdx.x + SORT_TILE / 2] = sKey[threadIdx.x + SORT_TILE / 2];
  v[threadIdx.x + SORT_TILE / 2] = sVal[threadIdx.x + SORT_TILE / 2];
}
