#include "cluster.cuh"

__device__ unsigned int gClusterCount;

__device__ int binOwner(int bin, int binsPerBlock) { return bin / binsPerBlock; }

__device__ void clusterZero(cg::cluster_group cluster, int *smem, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x) smem[i] = 0;
  cluster.sync();
}
