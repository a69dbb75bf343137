// Host driver: random-ish keys, tile sorts, then the segmented statistics. Compiled, not run.
#include <cstdio>
#include <vector>
#include "keys.cuh"

int main() {
  const int n = 1 << 16, segments = 64;
  std::vector<float> hk(n);
  std::vector<int> hv(n);
  for (int i = 0; i < n; ++i) {
    hk[i] = float((i * 7919) % 1000) - 500.f;
    hv[i] = i % 13;
  }
  float *keys, *sums, *soft, *sorted_keys;
  int *vals, *ranks, *running, *offsets, *sorted_vals;
  unsigned *enc;
  cub::KeyValuePair<int, float> *argmax;
  cudaMalloc(&keys, n * sizeof(float));
  cudaMalloc(&vals, n * sizeof(int));
  cudaMalloc(&enc, n * sizeof(unsigned));
  cudaMalloc(&ranks, n * sizeof(int));
  cudaMalloc(&running, n * sizeof(int));
  cudaMalloc(&offsets, (segments + 1) * sizeof(int));
  cudaMalloc(&sums, segments * sizeof(float));
  cudaMalloc(&soft, segments * sizeof(float));
  cudaMalloc(&argmax, segments * sizeof(*argmax));
  cudaMalloc(&sorted_keys, n * sizeof(float));
  cudaMalloc(&sorted_vals, n * sizeof(int));
  cudaMemcpy(keys, hk.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(vals, hv.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  sortAndRankTiles<<<(n + kTile - 1) / kTile, kBlockThreads>>>(keys, vals, enc, ranks, running, n);
  buildOffsets<<<1, segments + 1>>>(offsets, segments, n);
  segmentedStats(keys, offsets, segments, sums, argmax, soft, sorted_keys, sorted_vals, vals, n, 0);
  float s0;
  cudaMemcpy(&s0, sums, sizeof s0, cudaMemcpyDeviceToHost);
  printf("segment 0 sum %f\n", s0);
  return 0;
}
