#include "tiles.cuh"

__device__ float WarpSumShfl(cg::thread_block_tile<32> warp, float v) {
  for (int off = warp.size() / 2; off > 0; off /= 2) v += warp.shfl_down(v, off);
  return v;
}

__device__ float WarpMaxCg(cg::thread_block_tile<32> warp, float v) {
  return cg::reduce(warp, v, cg::greater<float>());
}

__device__ float BlockSum(cg::thread_block block, float v, float *scratch) {
  auto warp = cg::tiled_partition<32>(block);
  float w = WarpSumShfl(warp, v);
  if (warp.thread_rank() == 0) scratch[warp.meta_group_rank()] = w;
  block.sync();
  float total = 0.f;
  if (warp.meta_group_rank() == 0) {
    float x = warp.thread_rank() < warp.meta_group_size() ? scratch[warp.thread_rank()] : 0.f;
    total = cg::reduce(warp, x, cg::plus<float>());
  }
  block.sync();
  return total;
}
