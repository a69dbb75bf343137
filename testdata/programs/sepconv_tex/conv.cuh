#pragma once
#include <cuda_runtime.h>

#define KRADIUS 8
#define KLEN (2 * KRADIUS + 1)

extern __constant__ float d_taps[KLEN];
extern __constant__ int2 d_extent;

__device__ inline float tap(int k) { return d_taps[k + KRADIUS]; }
__device__ float clamp_read(const float *img, int x, int y);

__global__ void ConvRowsTex(cudaTextureObject_t src, float *dst);
__global__ void ConvColsSmem(const float *src, float *dst);
