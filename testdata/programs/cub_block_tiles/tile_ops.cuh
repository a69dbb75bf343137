#pragma once
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

constexpr int kThreads = 128;
constexpr int kItems = 4;

using TileReduce = cub::BlockReduce<int, kThreads>;
using TileScan = cub::BlockScan<int, kThreads, cub::BLOCK_SCAN_WARP_SCANS>;
using TileSort = cub::BlockRadixSort<unsigned, kThreads, kItems, int>;

// Helpers in tile_ops.cu; the caller owns the shared temp storage.
__device__ int tile_sum(TileReduce::TempStorage &tmp, int v);
__device__ int tile_max(TileReduce::TempStorage &tmp, int v);
__device__ void tile_exclusive_offsets(TileScan::TempStorage &tmp, int (&items)[kItems],
                                       int &total);
__device__ void tile_sort_pairs(TileSort::TempStorage &tmp, unsigned (&keys)[kItems],
                                int (&vals)[kItems]);
