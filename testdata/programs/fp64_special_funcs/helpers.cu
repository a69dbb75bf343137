#include "dmath.cuh"

__device__ double gStats[4];

__device__ __noinline__ double cndDouble(double d) {
  // Keep both forms: the library normcdf and the erfc identity.
  double a = normcdf(d);
  double b = 0.5 * erfc(-d * M_SQRT1_2);
  return 0.5 * (a + b);
}

__device__ __noinline__ void blackScholesPair(double s, double x, double t, double r, double v, double *call, double *put) {
  double sq = sqrt(t);
  double d1 = (log(s / x) + (r + 0.5 * v * v) * t) / (v * sq);
  double d2 = d1 - v * sq;
  double e = exp(-r * t);
  *call = s * cndDouble(d1) - x * e * cndDouble(d2);
  *put = x * e * cndDouble(-d2) - s * cndDouble(-d1);
}

__device__ __noinline__ double legendreP(int l, double x) {
  double p0 = 1.0, p1 = x;
  if (l == 0) return p0;
  for (int k = 2; k <= l; ++k) {
    double pk = ((2 * k - 1) * x * p1 - (k - 1) * p0) / k;
    p0 = p1;
    p1 = pk;
  }
  return p1;
}

__device__ double besselMix(double x, int n) {
  return j0(x) + y0(x + 1.0) + jn(n, x) + lgamma(x + 1.0) - log(tgamma(fmin(x, 20.0) + 1.0));
}
