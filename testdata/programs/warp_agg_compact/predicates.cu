#include "compact.cuh"

__device__ bool isPositive(float v) { return v > 0.f; }
__device__ bool isLarge(float v) { return fabsf(v) > 100.f; }
__device__ bool isFiniteNonZero(float v) { return isfinite(v) && v != 0.f; }

__device__ Predicate predicateTable[3] = {isPositive, isLarge, isFiniteNonZero};
