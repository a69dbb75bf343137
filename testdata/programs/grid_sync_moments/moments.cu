#include "moments.cuh"

__global__ void gridMomentsKernel(const float *x, int n, float *normalized, float *absMax) {
  extern __shared__ double scratch[];
  cg::grid_group grid = cg::this_grid();
  cg::thread_block block = cg::this_thread_block();

  double s = 0.0;
  for (unsigned long long i = grid.thread_rank(); i < n; i += grid.size()) s += x[i];
  s = blockSum(block, s, scratch);
  if (block.thread_rank() == 0) blockPartials[blockIdx.x] = s;
  grid.sync();

  if (grid.block_rank() == 0) {
    double t = 0.0;
    for (unsigned b = block.thread_rank(); b < grid.num_blocks(); b += block.size())
      t += blockPartials[b];
    t = blockSum(block, t, scratch);
    if (block.thread_rank() == 0) gridMoments[0] = t / n;
  }
  grid.sync();

  double mean = gridMoments[0], q = 0.0;
  float m = 0.f;
  auto tile = cg::tiled_partition<16>(block);
  for (unsigned long long i = grid.thread_rank(); i < n; i += grid.size()) {
    double d = x[i] - mean;
    q += d * d;
    m = fmaxf(m, fabsf((float)d));
  }
  m = tileMax(tile, m);
  if (tile.thread_rank() == 0) atomicMax((int *)absMax, __float_as_int(m));
  q = blockSum(block, q, scratch);
  if (block.thread_rank() == 0) blockPartials[blockIdx.x] = q;
  grid.sync();

  if (grid.block_rank() == 0) {
    double t = 0.0;
    for (unsigned b = block.thread_rank(); b < grid.num_blocks(); b += block.size())
      t += blockPartials[b];
    t = blockSum(block, t, scratch);
    if (block.thread_rank() == 0) gridMoments[1] = sqrt(t / (n - 1));
  }
  grid.sync();
  float inv = (float)(1.0 / gridMoments[1]);
  for (unsigned long long i = grid.thread_rank(); i < n; i += grid.size())
    normalized[i] = (float)(x[i] - gridMoments[0]) * inv;
}
