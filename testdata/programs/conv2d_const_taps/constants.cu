#include "conv.cuh"

__constant__ float cTaps[MAX_TAPS];
__constant__ ConvParams cParams;
__constant__ float cGainPerRow[1024];

__device__ float fetchPixel(const float *img, int x, int y) {
  if (cParams.border == 1 && (x < 0 || y < 0 || x >= cParams.width || y >= cParams.height))
    return 0.f;
  x = min(max(x, 0), cParams.width - 1);
  y = min(max(y, 0), cParams.height - 1);
  return img[y * cParams.pitch + x];
}

void uploadFilter(const float *taps, int radius, const ConvParams &p, const float *rowGain) {
  int n = (2 * radius + 1) * (2 * radius + 1);
  cudaMemcpyToSymbol(cTaps, taps, n * sizeof(float));
  cudaMemcpyToSymbol(cParams, &p, sizeof(p));
  cudaMemcpyToSymbol(cGainPerRow, rowGain, p.height * sizeof(float), 0, cudaMemcpyHostToDevice);
}
