#pragma once
#include <cuda_runtime.h>

__device__ __noinline__ double cndDouble(double d);
__device__ __noinline__ void blackScholesPair(double s, double x, double t, double r, double v, double *call, double *put);
__device__ __noinline__ double legendreP(int l, double x);
__device__ double besselMix(double x, int n);
extern __device__ double gStats[4];
