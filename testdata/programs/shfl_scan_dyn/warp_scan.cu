#include "scan.h"

__device__ int warp_incl_scan(int v, unsigned lane) {
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    int up = __shfl_up_sync(0xffffffffu, v, d);
    if (lane >= d) v += up;
  }
  return v;
}

// The sums are few: one block scans them with a warp per 32 and shared warp totals.
__global__ void scan_sums(int *sums, int count) {
  extern __shared__ int warp_totals[];
  unsigned lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
  int v = threadIdx.x < count ? sums[threadIdx.x] : 0;
  v = warp_incl_scan(v, lane);
  if (lane == 31) warp_totals[wid] = v;
  __syncthreads();
  if (wid == 0) {
    int t = lane < (blockDim.x >> 5) ? warp_totals[lane] : 0;
    warp_totals[lane] = warp_incl_scan(t, lane);
  }
  __syncthreads();
  if (wid > 0) v += warp_totals[wid - 1];
  if (threadIdx.x < count) sums[threadIdx.x] = v;
}
