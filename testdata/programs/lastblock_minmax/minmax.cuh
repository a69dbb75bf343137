#pragma once
#include <cuda_runtime.h>

struct MinMaxIdx {
  float lo, hi;
  int loIdx, hiIdx;
};

extern __device__ unsigned int blocksRetired;
extern __device__ MinMaxIdx partials[];

__device__ MinMaxIdx combine(MinMaxIdx a, MinMaxIdx b);
__device__ MinMaxIdx warpCombine(MinMaxIdx v);
__device__ bool isLastBlock();
__device__ int countOutliers(const float *x, int n, float lim);
