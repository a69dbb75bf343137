#include "histo.cuh"

__constant__ unsigned char cLut[CHANNELS][BINS];

__global__ void histogramKernel(const __grid_constant__ ImageDesc img) {
  __shared__ unsigned int sh[CHANNELS * BINS];
  for (int i = threadIdx.x; i < CHANNELS * BINS; i += blockDim.x) sh[i] = 0;
  __syncthreads();
  unsigned long long seen = 0;
  for (int y = blockIdx.y; y < img.height; y += gridDim.y)
    for (int x = blockIdx.x * blockDim.x + threadIdx.x; x < img.width; x += gridDim.x * blockDim.x) {
      accumulatePixel(sh, img.pixels[y * img.stride + x]);
      ++seen;
    }
  __syncthreads();
  flushBins(sh);
  atomicAdd(&mPixelsSeen, seen);
}

__global__ void cdfKernel(unsigned char *lutOut) {
  __shared__ unsigned int cdf[BINS];
  int c = blockIdx.x, t = threadIdx.x;
  cdf[t] = gHist[c][t];
  __syncthreads();
  for (int o = 1; o < BINS; o <<= 1) {
    unsigned v = t >= o ? cdf[t - o] : 0;
    __syncthreads();
    cdf[t] += v;
    __syncthreads();
  }
  unsigned total = cdf[BINS - 1];
  lutOut[c * BINS + t] = total ? (unsigned char)((255ull * cdf[t]) / total) : (unsigned char)t;
}

__global__ void equalizeKernel(const __grid_constant__ ImageDesc img, uchar4 *out) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= img.width || y >= img.height) return;
  uchar4 p = img.pixels[y * img.stride + x];
  out[y * img.width + x] = make_uchar4(cLut[0][p.x], cLut[1][p.y], cLut[2][p.z], p.w);
}
