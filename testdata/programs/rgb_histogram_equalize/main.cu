#include <cstdio>
#include "histo.cuh"

__global__ void histogramKernel(const __grid_constant__ ImageDesc img);
__global__ void cdfKernel(unsigned char *lutOut);
__global__ void equalizeKernel(const __grid_constant__ ImageDesc img, uchar4 *out);

int main() {
  const int w = 1920, h = 1080;
  uchar4 *pix, *out;
  unsigned char *lut;
  cudaMalloc(&pix, w * h * sizeof(uchar4));
  cudaMalloc(&out, w * h * sizeof(uchar4));
  cudaMalloc(&lut, CHANNELS * BINS);
  cudaMemset(pix, 0x40, w * h * sizeof(uchar4));
  ImageDesc d{pix, w, h, w};
  mPixelsSeen = 0;
  histogramKernel<<<dim3(8, 64), 256>>>(d);
  cdfKernel<<<CHANNELS, BINS>>>(lut);
  cudaMemcpyToSymbol(cLut, lut, CHANNELS * BINS, 0, cudaMemcpyDeviceToDevice);
  equalizeKernel<<<dim3((w + 255) / 256, h), 256>>>(d, out);
  cudaDeviceSynchronize();
  printf("pixels %llu\n", mPixelsSeen);
  return 0;
}
