#include "dmath.cuh"

__global__ void __launch_bounds__(128, 8) blackScholesKernel(const double *s, const double *x, const double *t, double *call,
                                                             double *put, int n, double r, double v) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    blackScholesPair(s[i], x[i], t[i], r, v, &call[i], &put[i]);
}

__global__ void __launch_bounds__(256) impliedVolKernel(const double *price, const double *s, const double *x, const double *t,
                                                        double *vol, int n, double r) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double lo = 1e-4, hi = 4.0;
  for (int it = 0; it < 60; ++it) {
    double mid = 0.5 * (lo + hi), c, p;
    blackScholesPair(s[i], x[i], t[i], r, mid, &c, &p);
    if (c > price[i]) hi = mid; else lo = mid;
  }
  vol[i] = 0.5 * (lo + hi);
  atomicAdd(&gStats[0], vol[i]);
}
