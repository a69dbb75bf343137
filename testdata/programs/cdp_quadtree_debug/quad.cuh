#pragma once
#include <cuda_runtime.h>

struct Interval {
  double a, b;
  int depth;
};

__device__ double integrand(double x);
__device__ double simpson(double a, double b);
__global__ void k_refine(Interval iv, double tol, double *total);
__global__ void k_leaf_batch(const Interval *ivs, int count, double *total);
