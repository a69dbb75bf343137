#pragma once
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

// warp_math.cu
__device__ float WarpSumShfl(cg::thread_block_tile<32> warp, float v);
__device__ float WarpMaxCg(cg::thread_block_tile<32> warp, float v);
__device__ float BlockSum(cg::thread_block block, float v, float *scratch);
