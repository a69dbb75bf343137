#include "scratch.cuh"

__device__ int gFlags[64];

__device__ __noinline__ float blockSumShared(float v) {
  __shared__ float partial[32];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  int nw = (blockDim.x + 31) >> 5;
  v = lane < nw ? partial[lane] : 0.f;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  __syncthreads();
  return v;
}

__device__ int blockCountTrue(bool pred) {
  __shared__ int counts[32];
  unsigned ballot = __ballot_sync(0xffffffffu, pred);
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) counts[warp] = __popc(ballot);
  __syncthreads();
  int total = 0;
  for (int w = 0; w < (blockDim.x + 31) / 32; ++w) total += counts[w];
  __syncthreads();
  return total;
}

__device__ __noinline__ int blockMaxIndex(const float *vals, int n) {
  __shared__ float bestV[1024];
  __shared__ int bestI[1024];
  int t = threadIdx.x;
  float v = -1e30f;
  int idx = -1;
  for (int i = t; i < n; i += blockDim.x)
    if (vals[i] > v) { v = vals[i]; idx = i; }
  bestV[t] = v;
  bestI[t] = idx;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s && bestV[t + s] > bestV[t]) { bestV[t] = bestV[t + s]; bestI[t] = bestI[t + s]; }
    __syncthreads();
  }
  return bestI[0];
}

// Left over from an older scan; nothing calls it.
__device__ void unusedPrefix(int *data) {
  __shared__ int tmp[256];
  tmp[threadIdx.x] = data[threadIdx.x];
  __syncthreads();
  for (int o = 1; o < 256; o <<= 1) {
    int x = threadIdx.x >= o ? tmp[threadIdx.x - o] : 0;
    __syncthreads();
    tmp[threadIdx.x] += x;
    __syncthreads();
  }
  data[threadIdx.x] = tmp[threadIdx.x];
}
