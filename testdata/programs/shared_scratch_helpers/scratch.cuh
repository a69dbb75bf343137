#pragma once
#include <cuda_runtime.h>

__device__ __noinline__ float blockSumShared(float v);
__device__ int blockCountTrue(bool pred);
__device__ __noinline__ int blockMaxIndex(const float *vals, int n);
__device__ void unusedPrefix(int *data);
extern __device__ int gFlags[64];
