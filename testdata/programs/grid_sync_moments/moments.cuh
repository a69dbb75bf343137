#pragma once
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

extern __device__ double blockPartials[];
extern __device__ double gridMoments[2];

__device__ double blockSum(cg::thread_block block, double v, double *scratch);
__device__ float tileMax(cg::thread_block_tile<16> tile, float v);
