#include "scan.h"

__global__ void scan_blocks(const int *in, int *out, int *sums, int n) {
  extern __shared__ int smem[];  // blockDim.x/32 warp totals, then a copy of the tile
  int *totals = smem;
  int *tile = smem + (blockDim.x >> 5);
  int gid = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
  tile[threadIdx.x] = gid < n ? in[gid] : 0;
  int v = warp_incl_scan(tile[threadIdx.x], lane);
  if (lane == 31) totals[wid] = v;
  __syncthreads();
  if (wid == 0) {
    int t = lane < (blockDim.x >> 5) ? totals[lane] : 0;
    totals[lane] = warp_incl_scan(t, lane);
  }
  __syncthreads();
  if (wid > 0) v += totals[wid - 1];
  if (gid < n) out[gid] = v;
  if (threadIdx.x == blockDim.x - 1) sums[blockIdx.x] = v;
}

__global__ void add_offsets(int *out, const int *sums, int n) {
  int gid = blockIdx.x * blockDim.x + threadIdx.x;
  if (blockIdx.x > 0 && gid < n) out[gid] += sums[blockIdx.x - 1];
}
