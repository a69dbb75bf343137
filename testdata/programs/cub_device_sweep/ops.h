#pragma once
#include <cuda_runtime.h>

struct MinMax {
  float lo, hi;
};

struct MinMaxMerge {
  __host__ __device__ MinMax operator()(const MinMax &a, const MinMax &b) const {
    return MinMax{a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi};
  }
};

void launch_make_pairs(const float *x, MinMax *pairs, unsigned *keys, int n, cudaStream_t s);
MinMax device_minmax(const MinMax *pairs, int n, cudaStream_t s);
void device_sort_and_scan(unsigned *keys, int *counts, int n, cudaStream_t s);
