#include <cstdio>
#include <vector>
#include <cuda_runtime.h>
#include "sortnet.h"

// Each block produces SORT_TILE outputs of the merge of two runs of length `run`.
__global__ void mergePassKernel(const unsigned *ik, const unsigned *iv, unsigned *ok,
                                unsigned *ov, int run, int n) {
  __shared__ unsigned aKeys[SORT_TILE], bKeys[SORT_TILE];
  __shared__ int bounds[2];
  int pairBase = (blockIdx.x * SORT_TILE) / (2 * run) * (2 * run);
  int out0 = blockIdx.x * SORT_TILE - pairBase;
  const unsigned *a = ik + pairBase, *b = ik + pairBase + run;
  if (threadIdx.x == 0) {
    bounds[0] = mergePathSplit(a, run, b, run, out0);
    bounds[1] = mergePathSplit(a, run, b, run, out0 + SORT_TILE);
  }
  __syncthreads();
  int a0 = bounds[0], a1 = bounds[1], b0 = out0 - a0, b1 = out0 + SORT_TILE - a1;
  for (int i = threadIdx.x; i < a1 - a0; i += blockDim.x) aKeys[i] = a[a0 + i];
  for (int i = threadIdx.x; i < b1 - b0; i += blockDim.x) bKeys[i] = b[b0 + i];
  __syncthreads();
  for (int d = threadIdx.x; d < SORT_TILE; d += blockDim.x) {
    int ai = mergePathSplit(aKeys, a1 - a0, bKeys, b1 - b0, d);
    int bi = d - ai;
    bool takeA = bi >= b1 - b0 || (ai < a1 - a0 && aKeys[ai] <= bKeys[bi]);
    int src = takeA ? pairBase + a0 + ai : pairBase + run + b0 + bi;
    ok[pairBase + out0 + d] = ik[src];
    ov[pairBase + out0 + d] = iv[src];
  }
}

int main() {
  const int n = 1 << 18;
  std::vector<unsigned> hk(n), hv(n);
  for (int i = 0; i < n; ++i) hk[i] = (i * 2654435761u) >> 4, hv[i] = i;
  unsigned *k[2], *v[2];
  for (int i = 0; i < 2; ++i) {
    cudaMalloc(&k[i], n * sizeof(unsigned));
    cudaMalloc(&v[i], n * sizeof(unsigned));
  }
  cudaMemcpy(k[0], hk.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice);
  cudaMemcpy(v[0], hv.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice);
  bitonicTileKernel<<<n / SORT_TILE, SORT_THREADS>>>(k[0], v[0], 1);
  int cur = 0;
  for (int run = SORT_TILE; run < n; run *= 2, cur ^= 1)
    mergePassKernel<<<n / SORT_TILE, 256>>>(k[cur], v[cur], k[cur ^ 1], v[cur ^ 1], run, n);
  cudaMemcpy(hk.data(), k[cur], n * sizeof(unsigned), cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 1; i < n; ++i) bad += hk[i - 1] > hk[i];
  printf("%s\n", bad ? "unsorted" : "sorted");
  return 0;
}
