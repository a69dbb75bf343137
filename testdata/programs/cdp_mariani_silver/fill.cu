#include "mandel.cuh"

__global__ void fillRect(int *dwells, int x0, int y0, int d, int value) {
  int x = threadIdx.x + blockIdx.x * blockDim.x, y = threadIdx.y + blockIdx.y * blockDim.y;
  if (x < d && y < d) dwells[(y0 + y) * cView.w + x0 + x] = value;
}

__global__ void perPixel(int *dwells, int x0, int y0, int d) {
  int x = threadIdx.x + blockIdx.x * blockDim.x, y = threadIdx.y + blockIdx.y * blockDim.y;
  if (x < d && y < d) dwells[(y0 + y) * cView.w + x0 + x] = pixelDwell(x0 + x, y0 + y);
}
