// A device function's copy, without launch bounds.
__device__ double f(double x) { return sin(x); }
__global__ void kb(const double *p, double *o) { o[1] = f(p[1]); }
