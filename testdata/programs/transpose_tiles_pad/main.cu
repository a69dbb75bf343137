#include <cstdio>
#include "transpose.cuh"

template <typename T, int TILE, int ROWS> __global__ void transposeNaive(T *, const T *);
template <typename T, int TILE, int ROWS> __global__ void transposeCoalesced(T *, const T *);
template <typename T, int TILE, int ROWS> __global__ void transposePadded(T *, const T *);
__global__ void transposeDynFloat(float *, const float *, int);
__global__ void transposeDynDouble2(double2 *, const double2 *, int);
__global__ void copyDynBytes(unsigned char *, const unsigned char *, int);

template <typename T, int TILE, int ROWS> void runAll(int rows, int cols) {
  T *a, *b;
  cudaMalloc(&a, rows * cols * sizeof(T));
  cudaMalloc(&b, rows * cols * sizeof(T));
  dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE), block(TILE, ROWS);
  transposeNaive<T, TILE, ROWS><<<grid, block>>>(b, a);
  transposeCoalesced<T, TILE, ROWS><<<grid, block>>>(b, a);
  transposePadded<T, TILE, ROWS><<<grid, block>>>(b, a);
  cudaFree(a);
  cudaFree(b);
}

int main() {
  Dims d{1024, 768};
  cudaMemcpyToSymbol(gDims, &d, sizeof(d));
  runAll<float, 32, 8>(d.rows, d.cols);
  runAll<float, 16, 16>(d.rows, d.cols);
  runAll<double, 32, 8>(d.rows, d.cols);
  runAll<double, 16, 4>(d.rows, d.cols);
  runAll<char2, 32, 8>(d.rows, d.cols);
  float *f;
  double2 *g;
  cudaMalloc(&f, 2 * d.rows * d.cols * sizeof(float));
  cudaMalloc(&g, 2 * d.rows * d.cols * sizeof(double2));
  int t = 24;
  dim3 grid((d.cols + t - 1) / t, (d.rows + t - 1) / t), block(t, 8);
  transposeDynFloat<<<grid, block, t * (t + 1) * sizeof(float)>>>(f + d.rows * d.cols, f, t);
  transposeDynDouble2<<<grid, block, t * (t + 1) * sizeof(double2)>>>(g + d.rows * d.cols, g, t);
  copyDynBytes<<<64, 256, 256>>>((unsigned char *)f, (const unsigned char *)g, 64 * 256);
  printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
  return 0;
}
