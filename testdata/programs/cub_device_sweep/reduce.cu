#include <cub/device/device_reduce.cuh>
#include "ops.h"

MinMax device_minmax(const MinMax *pairs, int n, cudaStream_t s) {
  MinMax *out;
  cudaMalloc(&out, sizeof(MinMax));
  void *tmp = nullptr;
  size_t bytes = 0;
  MinMax init{1e30f, -1e30f};
  cub::DeviceReduce::Reduce(tmp, bytes, pairs, out, n, MinMaxMerge(), init, s);
  cudaMalloc(&tmp, bytes);
  cub::DeviceReduce::Reduce(tmp, bytes, pairs, out, n, MinMaxMerge(), init, s);
  MinMax h;
  cudaMemcpyAsync(&h, out, sizeof h, cudaMemcpyDeviceToHost, s);
  cudaStreamSynchronize(s);
  cudaFree(tmp);
  cudaFree(out);
  return h;
}
