#include "diag.cuh"

__device__ const char *const stageNames[STAGE_COUNT] = {"load", "scale", "store"};
__constant__ char cBanner[32] = "[diag]";
__device__ unsigned long long gEvents;

__device__ void report(Stage s, int block, double value) {
  unsigned long long n = atomicAdd(&gEvents, 1ULL);
  printf("%s event %llu stage=%s block=%d value=%.6e (%a)\n", cBanner, n, stageNames[s], block, value, value);
}

__device__ float checkedScale(float v, float s) {
  assert(s != 0.f && "scale must be non-zero");
  assert(isfinite(v));
  return v * s;
}
