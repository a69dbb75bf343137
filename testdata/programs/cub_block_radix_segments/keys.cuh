// Declarations shared by the CUB block-sort / segmented program.
#pragma once
#include <cub/cub.cuh>

// keys.cu: order-preserving float <-> uint encoding and a bounded-magnitude combiner.
__device__ unsigned encode_key(float f);
__device__ float decode_key(unsigned u);
__device__ float soft_combine(float a, float b);
extern __device__ unsigned long long g_sorted_tiles;
extern __device__ unsigned long long g_combines;

struct SoftMax2 {
  __device__ float operator()(float a, float b) const { return soft_combine(a, b); }
};

// block_sort.cu
constexpr int kBlockThreads = 128, kItemsPerThread = 8, kTile = kBlockThreads * kItemsPerThread;
__global__ void sortAndRankTiles(const float *keys_in, const int *vals_in, unsigned *keys_out,
                                 int *ranks_out, int *running_out, int n);
// segments.cu
__global__ void buildOffsets(int *offsets, int segments, int n);
void segmentedStats(const float *values, const int *offsets, int segments, float *sums,
                    cub::KeyValuePair<int, float> *argmax, float *soft, float *sorted_keys,
                    int *sorted_vals, const int *vals, int n, cudaStream_t stream);
