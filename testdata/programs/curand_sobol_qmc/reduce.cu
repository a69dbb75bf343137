// A warp-shuffle block reduction and a table of estimates every generator's kernel fills.
#include "rng.cuh"

__device__ double g_estimates[8];

__device__ float block_reduce_sum(float v) {
  __shared__ float warp_sums[32];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  const int warps = (blockDim.x + 31) / 32;
  v = threadIdx.x < warps ? warp_sums[threadIdx.x] : 0.f;
  if (warp == 0)
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  __syncthreads();
  return v;
}

__device__ void publish(int slot, float block_sum, double scale) {
  if (threadIdx.x == 0) atomicAdd(&g_estimates[slot], double(block_sum) * scale);
}
