#include "tiles.cuh"

__device__ float g_partials[1024];

__global__ void GridNormalize(float *x, int n, float *normOut, float *maxOut) {
  __shared__ float scratch[32];
  cg::grid_group grid = cg::this_grid();
  cg::thread_block block = cg::this_thread_block();
  float local = 0.f, peak = 0.f;
  for (int i = grid.thread_rank(); i < n; i += grid.size()) {
    local += x[i] * x[i];
    peak = fmaxf(peak, fabsf(x[i]));
  }
  float bsum = BlockSum(block, local, scratch);
  auto warp = cg::tiled_partition<32>(block);
  float wmax = WarpMaxCg(warp, peak);
  if (warp.thread_rank() == 0) atomicMax(reinterpret_cast<int *>(maxOut), __float_as_int(wmax));
  if (block.thread_rank() == 0) g_partials[blockIdx.x] = bsum;
  grid.sync();
  if (blockIdx.x == 0) {
    float p = 0.f;
    for (int b = threadIdx.x; b < gridDim.x; b += blockDim.x) p += g_partials[b];
    float total = BlockSum(block, p, scratch);
    if (threadIdx.x == 0) g_partials[0] = sqrtf(total);
  }
  grid.sync();
  float inv = 1.0f / g_partials[0];
  for (int i = grid.thread_rank(); i < n; i += grid.size()) x[i] *= inv;
  if (grid.thread_rank() == 0) *normOut = g_partials[0];
}
