#include "moments.cuh"

__device__ double blockPartials[4096];
__device__ double gridMoments[2];

__device__ double blockSum(cg::thread_block block, double v, double *scratch) {
  auto tile = cg::tiled_partition<16>(block);
  double t = cg::reduce(tile, v, cg::plus<double>());
  unsigned tiles = block.size() / 16;
  if (tile.thread_rank() == 0) scratch[tile.meta_group_rank()] = t;
  block.sync();
  double r = 0.0;
  if (block.thread_rank() < tiles) r = scratch[block.thread_rank()];
  if (block.thread_rank() < 32) {
    auto w = cg::tiled_partition<32>(cg::this_thread_block());
    r = cg::reduce(w, r, cg::plus<double>());
  }
  block.sync();
  return r;
}

__device__ float tileMax(cg::thread_block_tile<16> tile, float v) {
  return cg::reduce(tile, v, cg::greater<float>());
}
