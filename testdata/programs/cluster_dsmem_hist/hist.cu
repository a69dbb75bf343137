#include "cluster.cuh"

__global__ void clusterHist(int *bins, int nbins, const int *input, size_t n) {
  extern __shared__ int smem[];
  cg::cluster_group cluster = cg::this_cluster();
  unsigned rank = cluster.block_rank();
  int perBlock = nbins / cluster.num_blocks();
  clusterZero(cluster, smem, perBlock);
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    int b = min(max(input[i], 0), nbins - 1);
    int owner = binOwner(b, perBlock);
    int *dst = cluster.map_shared_rank(smem, owner);
    atomicAdd(dst + b % perBlock, 1);
  }
  cluster.sync();
  for (int i = threadIdx.x; i < perBlock; i += blockDim.x) atomicAdd(&bins[rank * perBlock + i], smem[i]);
  if (rank == 0 && threadIdx.x == 0) atomicAdd(&gClusterCount, 1u);
}

__global__ void __cluster_dims__(2, 1, 1) pairExchange(float *out) {
  __shared__ float mine[128];
  cg::cluster_group cluster = cg::this_cluster();
  mine[threadIdx.x] = blockIdx.x * 1000.f + threadIdx.x;
  cluster.sync();
  float *peer = cluster.map_shared_rank(mine, cluster.block_rank() ^ 1);
  out[blockIdx.x * blockDim.x + threadIdx.x] = peer[threadIdx.x];
  cluster.sync();
}
