#include "scratch.cuh"

__global__ void meanAndPositives(const float *x, int n, float *mean, int *positives) {
  extern __shared__ float fstage[];
  float acc = 0.f;
  int pos = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    fstage[threadIdx.x] = x[i];
    acc += fstage[threadIdx.x];
    pos += blockCountTrue(x[i] > 0.f);
  }
  acc = blockSumShared(acc);
  if (threadIdx.x == 0) {
    atomicAdd(mean, acc / n);
    atomicAdd(positives, pos);
  }
}

__global__ void pairSums(const int2 *p, int n, float *out) {
  extern __shared__ int2 pairs[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  pairs[threadIdx.x] = i < n ? p[i] : make_int2(0, 0);
  __syncthreads();
  int2 q = pairs[blockDim.x - 1 - threadIdx.x];
  float s = blockSumShared((float)(q.x + q.y));
  if (threadIdx.x == 0) out[blockIdx.x] = s;
}
