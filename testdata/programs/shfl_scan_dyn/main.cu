#include <cstdio>
#include <cuda_runtime.h>
#include "scan.h"

int main() {
  const int threads = 512, blocks = 512, n = threads * blocks;
  int *in, *out, *sums;
  cudaMallocManaged(&in, n * sizeof(int));
  cudaMallocManaged(&out, n * sizeof(int));
  cudaMallocManaged(&sums, blocks * sizeof(int));
  for (int i = 0; i < n; ++i) in[i] = 1;
  size_t smem = (threads / 32 + threads) * sizeof(int);
  scan_blocks<<<blocks, threads, smem>>>(in, out, sums, n);
  scan_sums<<<1, blocks, 32 * sizeof(int)>>>(sums, blocks);
  add_offsets<<<blocks, threads>>>(out, sums, n);
  cudaDeviceSynchronize();
  printf("last %d (expect %d)\n", out[n - 1], n);
  return 0;
}
