#include <cstdio>
#include "cluster.cuh"

__global__ void clusterHist(int *bins, int nbins, const int *input, size_t n);
__global__ void pairExchange(float *out);

int main() {
  const int nbins = 4096, csize = 4;
  size_t n = 1 << 22;
  int *bins, *in;
  float *out;
  cudaMalloc(&bins, nbins * sizeof(int));
  cudaMalloc(&in, n * sizeof(int));
  cudaMalloc(&out, 64 * 128 * sizeof(float));
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(64);
  cfg.blockDim = dim3(256);
  cfg.dynamicSmemBytes = nbins / csize * sizeof(int);
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = csize;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  cudaLaunchKernelEx(&cfg, clusterHist, bins, nbins, (const int *)in, n);
  pairExchange<<<64, 128>>>(out);
  printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
  return 0;
}
