// Host driver: the staged histogram and slot claiming kernels, then the thrust pipeline.
// Compiled, not run.
#include <cstdio>
#include <vector>
#include "shared.cuh"

int main() {
  const int n = 1 << 18, buckets = 32;
  std::vector<float> h(n);
  std::vector<int> hk(n);
  for (int i = 0; i < n; ++i) {
    h[i] = float(i % 1000) / 1000.f;
    hk[i] = (i * 31) % 97;
  }
  float *data;
  int *keys, *hist, *cursor, *slots;
  cudaMalloc(&data, n * sizeof(float));
  cudaMalloc(&keys, n * sizeof(int));
  cudaMalloc(&hist, buckets * sizeof(int));
  cudaMalloc(&cursor, sizeof(int));
  cudaMalloc(&slots, n * sizeof(int));
  cudaMemcpy(data, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(keys, hk.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(hist, 0, buckets * sizeof(int));
  cudaMemset(cursor, 0, sizeof(int));
  stagedHistogram<<<64, 256>>>(data, n, hist, buckets);
  claimSlots<<<64, 256>>>(data, n, 0.9f, cursor, slots);
  PipelineResult r = runPipeline(data, keys, n);
  printf("energy %f above %d last %f\n", r.energy, r.above, r.last_run);
  return 0;
}
