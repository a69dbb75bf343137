#include <cstdio>
#include <vector>
#include <cuda_runtime.h>
#include "tile_ops.cuh"

__global__ void compactFlagsKernel(const int *flags, int *offsets, int *blockTotals, int n);
__global__ void sortTilesKernel(unsigned *keys, int *vals, int *tileMax);
__global__ void sumTotalsKernel(const int *totals, int count, int *out);

int main() {
  const int tiles = 64, n = tiles * kThreads * kItems;
  std::vector<int> flags(n);
  std::vector<unsigned> keys(n);
  for (int i = 0; i < n; ++i) {
    flags[i] = (i * 7) % 3 == 0;
    keys[i] = (i * 2654435761u) >> 8;
  }
  int *dFlags, *dOffsets, *dTotals, *dVals, *dMax, *dOut;
  unsigned *dKeys;
  cudaMalloc(&dFlags, n * sizeof(int));
  cudaMalloc(&dOffsets, n * sizeof(int));
  cudaMalloc(&dVals, n * sizeof(int));
  cudaMalloc(&dKeys, n * sizeof(unsigned));
  cudaMalloc(&dTotals, tiles * sizeof(int));
  cudaMalloc(&dMax, tiles * sizeof(int));
  cudaMalloc(&dOut, sizeof(int));
  cudaMemcpy(dFlags, flags.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(dVals, flags.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(dKeys, keys.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice);
  compactFlagsKernel<<<tiles, kThreads>>>(dFlags, dOffsets, dTotals, n);
  sortTilesKernel<<<tiles, kThreads>>>(dKeys, dVals, dMax);
  sumTotalsKernel<<<1, kThreads>>>(dTotals, tiles, dOut);
  int total;
  cudaMemcpy(&total, dOut, sizeof total, cudaMemcpyDeviceToHost);
  printf("selected %d\n", total);
  return 0;
}
