#include "transpose.cuh"

// Tile size chosen at run time: the padded tile lives in dynamic shared memory.
__global__ void transposeDynFloat(float *out, const float *in, int tile) {
  extern __shared__ float fsm[];
  int c = blockIdx.x * tile + threadIdx.x, r = blockIdx.y * tile + threadIdx.y;
  for (int j = 0; j < tile; j += blockDim.y)
    if (inside(r + j, c)) fsm[(threadIdx.y + j) * (tile + 1) + threadIdx.x] = in[rowMajor(r + j, c, gDims.cols)];
  __syncthreads();
  c = blockIdx.y * tile + threadIdx.x;
  r = blockIdx.x * tile + threadIdx.y;
  for (int j = 0; j < tile; j += blockDim.y)
    if (r + j < gDims.cols && c < gDims.rows)
      out[rowMajor(r + j, c, gDims.rows)] = fsm[threadIdx.x * (tile + 1) + threadIdx.y + j];
}

__global__ void transposeDynDouble2(double2 *out, const double2 *in, int tile) {
  extern __shared__ double2 dsm[];
  int c = blockIdx.x * tile + threadIdx.x, r = blockIdx.y * tile + threadIdx.y;
  for (int j = 0; j < tile; j += blockDim.y)
    if (inside(r + j, c)) dsm[(threadIdx.y + j) * (tile + 1) + threadIdx.x] = in[rowMajor(r + j, c, gDims.cols)];
  __syncthreads();
  c = blockIdx.y * tile + threadIdx.x;
  r = blockIdx.x * tile + threadIdx.y;
  for (int j = 0; j < tile; j += blockDim.y)
    if (r + j < gDims.cols && c < gDims.rows)
      out[rowMajor(r + j, c, gDims.rows)] = dsm[threadIdx.x * (tile + 1) + threadIdx.y + j];
}

__global__ void copyDynBytes(unsigned char *out, const unsigned char *in, int n) {
  extern __shared__ unsigned char bsm[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) bsm[threadIdx.x] = in[i];
  __syncthreads();
  if (i < n) out[i] = bsm[blockDim.x - 1 - threadIdx.x];
}
