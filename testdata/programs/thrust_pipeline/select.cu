#include <cub/device/device_select.cuh>
#include "records.h"
struct Heavier {
  float cut;
  __host__ __device__ bool operator()(float s) const { return s > cut; }
};
int select_heavy(const float *sums, int n, float cut, float *out) {
  int *count;
  cudaMalloc(&count, sizeof(int));
  size_t bytes = 0;
  cub::DeviceSelect::If(nullptr, bytes, sums, out, count, n, Heavier{cut});
  void *tmp;
  cudaMalloc(&tmp, bytes);
  cub::DeviceSelect::If(tmp, bytes, sums, out, count, n, Heavier{cut});
  int h = 0;
  cudaMemcpy(&h, count, sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(tmp);
  cudaFree(count);
  return h;
}
