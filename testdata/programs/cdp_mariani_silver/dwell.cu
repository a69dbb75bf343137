#include "mandel.cuh"

__constant__ View cView;

__device__ int pixelDwell(int x, int y) {
  float cr = cView.x0 + (cView.x1 - cView.x0) * x / cView.w;
  float ci = cView.y0 + (cView.y1 - cView.y0) * y / cView.h;
  float zr = cr, zi = ci;
  int d = 0;
  while (d < MAX_DWELL && zr * zr + zi * zi < 4.f) {
    float t = zr * zr - zi * zi + cr;
    zi = 2.f * zr * zi + ci;
    zr = t;
    ++d;
  }
  return d;
}

__device__ int sameDwell(int a, int b) {
  return a == b ? a : (a == MAX_DWELL + 1 ? b : (b == MAX_DWELL + 1 ? a : DIFF_DWELL));
}

__device__ int borderDwell(int x0, int y0, int d) {
  __shared__ int s[256];
  int tid = threadIdx.y * blockDim.x + threadIdx.x, nt = blockDim.x * blockDim.y;
  int common = MAX_DWELL + 1;
  for (int r = tid; r < d; r += nt)
    for (int b = 0; b < 4; ++b) {
      int x = b % 2 ? x0 + r : (b == 0 ? x0 + d - 1 : x0);
      int y = b % 2 ? (b == 1 ? y0 + d - 1 : y0) : y0 + r;
      common = sameDwell(common, pixelDwell(x, y));
    }
  s[tid] = common;
  __syncthreads();
  for (int n = nt / 2; n > 0; n /= 2) {
    if (tid < n) s[tid] = sameDwell(s[tid], s[tid + n]);
    __syncthreads();
  }
  int r = s[0];
  __syncthreads();
  return r;
}
