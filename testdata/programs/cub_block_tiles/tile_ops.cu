#include "tile_ops.cuh"

__device__ int tile_sum(TileReduce::TempStorage &tmp, int v) {
  return TileReduce(tmp).Sum(v);
}

__device__ int tile_max(TileReduce::TempStorage &tmp, int v) {
  return TileReduce(tmp).Reduce(v, cuda::maximum<>{});
}

__device__ void tile_exclusive_offsets(TileScan::TempStorage &tmp, int (&items)[kItems],
                                       int &total) {
  TileScan(tmp).ExclusiveSum(items, items, total);
}

__device__ void tile_sort_pairs(TileSort::TempStorage &tmp, unsigned (&keys)[kItems],
                                int (&vals)[kItems]) {
  TileSort(tmp).SortBlockedToStriped(keys, vals);
}
