#include <cstdio>
#include <vector>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include "ops.h"

void device_sort_and_scan(unsigned *keys, int *counts, int n, cudaStream_t s) {
  unsigned *sorted;
  cudaMalloc(&sorted, n * sizeof(unsigned));
  size_t sortBytes = 0, scanBytes = 0;
  cub::DeviceRadixSort::SortKeys(nullptr, sortBytes, keys, sorted, n, 0, 10, s);
  cub::DeviceScan::ExclusiveSum(nullptr, scanBytes, counts, counts, n, s);
  void *tmp;
  cudaMalloc(&tmp, sortBytes > scanBytes ? sortBytes : scanBytes);
  cub::DeviceRadixSort::SortKeys(tmp, sortBytes, keys, sorted, n, 0, 10, s);
  cub::DeviceScan::ExclusiveSum(tmp, scanBytes, counts, counts, n, s);
  cudaMemcpyAsync(keys, sorted, n * sizeof(unsigned), cudaMemcpyDeviceToDevice, s);
  cudaStreamSynchronize(s);
  cudaFree(tmp);
  cudaFree(sorted);
}

int main() {
  const int n = 100000;
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i) h[i] = (i * 37 % 1000) / 1000.0f;
  float *x;
  MinMax *pairs;
  unsigned *keys;
  int *counts;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&pairs, n * sizeof(MinMax));
  cudaMalloc(&keys, n * sizeof(unsigned));
  cudaMalloc(&counts, n * sizeof(int));
  cudaMemset(counts, 0, n * sizeof(int));
  cudaMemcpy(x, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaStream_t s;
  cudaStreamCreate(&s);
  launch_make_pairs(x, pairs, keys, n, s);
  MinMax mm = device_minmax(pairs, n, s);
  device_sort_and_scan(keys, counts, n, s);
  printf("[%f, %f]\n", mm.lo, mm.hi);
  return 0;
}
