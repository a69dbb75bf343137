#pragma once
#include <cuda_runtime.h>

#define BINS 256
#define CHANNELS 3

struct ImageDesc { const uchar4 *pixels; int width, height, stride; };

extern __managed__ unsigned long long mPixelsSeen;
extern __constant__ unsigned char cLut[CHANNELS][BINS];
extern __device__ unsigned int gHist[CHANNELS][BINS];

__device__ void accumulatePixel(unsigned int *sh, uchar4 p);
__device__ void flushBins(const unsigned int *sh);
