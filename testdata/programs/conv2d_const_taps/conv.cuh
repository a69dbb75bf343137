#pragma once
#include <cuda_runtime.h>

#define MAX_RADIUS 7
#define MAX_TAPS ((2 * MAX_RADIUS + 1) * (2 * MAX_RADIUS + 1))

struct ConvParams {
  int width, height, pitch;
  float bias, gain;
  int border;  // 0 clamp, 1 zero
};

extern __constant__ float cTaps[MAX_TAPS];
extern __constant__ ConvParams cParams;
extern __constant__ float cGainPerRow[1024];

__device__ float fetchPixel(const float *img, int x, int y);
void uploadFilter(const float *taps, int radius, const ConvParams &p, const float *rowGain);
