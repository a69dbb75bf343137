// Segmented statistics over variable-length segments: offsets from a kernel, then
// DeviceSegmentedReduce Sum / ArgMax / Reduce(SoftMax2) and DeviceSegmentedRadixSort pairs,
// each called twice (size query, run) with one temporary allocation.
#include <algorithm>
#include "keys.cuh"

__global__ void buildOffsets(int *offsets, int segments, int n) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s > segments) return;
  // Quadratically growing segments, the last one ends at n.
  long long pos = (long long)n * s * s / ((long long)segments * segments);
  offsets[s] = s == segments ? n : (int)pos;
}

void segmentedStats(const float *values, const int *offsets, int segments, float *sums,
                    cub::KeyValuePair<int, float> *argmax, float *soft, float *sorted_keys,
                    int *sorted_vals, const int *vals, int n, cudaStream_t stream) {
  size_t b1 = 0, b2 = 0, b3 = 0, b4 = 0;
  cub::DeviceSegmentedReduce::Sum(nullptr, b1, values, sums, segments, offsets, offsets + 1,
                                  stream);
  cub::DeviceSegmentedReduce::ArgMax(nullptr, b2, values, argmax, segments, offsets,
                                     offsets + 1, stream);
  cub::DeviceSegmentedReduce::Reduce(nullptr, b3, values, soft, segments, offsets, offsets + 1,
                                     SoftMax2{}, -INFINITY, stream);
  cub::DeviceSegmentedRadixSort::SortPairsDescending(nullptr, b4, values, sorted_keys, vals,
                                                     sorted_vals, n, segments, offsets,
                                                     offsets + 1, 0, 32, stream);
  size_t bytes = std::max(std::max(b1, b2), std::max(b3, b4));
  void *tmp;
  cudaMallocAsync(&tmp, bytes, stream);
  cub::DeviceSegmentedReduce::Sum(tmp, b1, values, sums, segments, offsets, offsets + 1, stream);
  cub::DeviceSegmentedReduce::ArgMax(tmp, b2, values, argmax, segments, offsets, offsets + 1,
                                     stream);
  cub::DeviceSegmentedReduce::Reduce(tmp, b3, values, soft, segments, offsets, offsets + 1,
                                     SoftMax2{}, -INFINITY, stream);
  cub::DeviceSegmentedRadixSort::SortPairsDescending(tmp, b4, values, sorted_keys, vals,
                                                     sorted_vals, n, segments, offsets,
                                                     offsets + 1, 0, 32, stream);
  cudaFreeAsync(tmp, stream);
}
