#pragma once
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__device__ int binOwner(int bin, int binsPerBlock);
__device__ void clusterZero(cg::cluster_group cluster, int *smem, int n);
extern __device__ unsigned int gClusterCount;
