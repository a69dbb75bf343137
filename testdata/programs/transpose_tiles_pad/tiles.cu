#include "transpose.cuh"

template <typename T, int TILE, int ROWS>
__global__ void __launch_bounds__(TILE * ROWS, 4) transposeNaive(T *out, const T *in) {
  int c = blockIdx.x * TILE + threadIdx.x, r = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (inside(r + j, c)) out[rowMajor(c, r + j, gDims.rows)] = in[rowMajor(r + j, c, gDims.cols)];
}

template <typename T, int TILE, int ROWS>
__global__ void __launch_bounds__(TILE * ROWS) transposeCoalesced(T *out, const T *in) {
  __shared__ T tile[TILE][TILE];
  int c = blockIdx.x * TILE + threadIdx.x, r = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (inside(r + j, c)) tile[threadIdx.y + j][threadIdx.x] = in[rowMajor(r + j, c, gDims.cols)];
  __syncthreads();
  c = blockIdx.y * TILE + threadIdx.x;
  r = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (r + j < gDims.cols && c < gDims.rows) out[rowMajor(r + j, c, gDims.rows)] = tile[threadIdx.x][threadIdx.y + j];
}

template <typename T, int TILE, int ROWS>
__global__ void __launch_bounds__(TILE * ROWS) transposePadded(T *out, const T *__restrict__ in) {
  __shared__ T tile[TILE][TILE + 1];
  int c = blockIdx.x * TILE + threadIdx.x, r = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (inside(r + j, c)) tile[threadIdx.y + j][threadIdx.x] = __ldg(&in[rowMajor(r + j, c, gDims.cols)]);
  __syncthreads();
  c = blockIdx.y * TILE + threadIdx.x;
  r = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (r + j < gDims.cols && c < gDims.rows) out[rowMajor(r + j, c, gDims.rows)] = tile[threadIdx.x][threadIdx.y + j];
}

#define INST(T, TILE, ROWS)                                                 \
  template __global__ void transposeNaive<T, TILE, ROWS>(T *, const T *);     \
  template __global__ void transposeCoalesced<T, TILE, ROWS>(T *, const T *); \
  template __global__ void transposePadded<T, TILE, ROWS>(T *, const T *);
INST(float, 32, 8)
INST(float, 16, 16)
INST(double, 32, 8)
INST(double, 16, 4)
INST(char2, 32, 8)
