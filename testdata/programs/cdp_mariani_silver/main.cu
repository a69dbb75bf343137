#include <cstdio>
#include "mandel.cuh"

__device__ int gLaunchErrors;

__global__ void marianiSilver(int *dwells, int x0, int y0, int d, int depth) {
  x0 += d * blockIdx.x;
  y0 += d * blockIdx.y;
  int common = borderDwell(x0, y0, d);
  if (threadIdx.x == 0 && threadIdx.y == 0) {
    dim3 bs(16, 16), grid((d + 15) / 16, (d + 15) / 16);
    if (common != DIFF_DWELL) {
      fillRect<<<grid, bs, 0, cudaStreamFireAndForget>>>(dwells, x0, y0, d, common);
    } else if (depth + 1 < MAX_DEPTH && d / SUBDIV > MIN_SIZE) {
      marianiSilver<<<dim3(SUBDIV, SUBDIV), bs, 0, cudaStreamFireAndForget>>>(dwells, x0, y0, d / SUBDIV, depth + 1);
    } else {
      perPixel<<<grid, bs, 0, cudaStreamTailLaunch>>>(dwells, x0, y0, d);
    }
    if (cudaGetLastError() != cudaSuccess) atomicAdd(&gLaunchErrors, 1);
  }
}

int main() {
  const int w = 2048, h = 2048;
  View v{-1.5f, -1.f, 0.5f, 1.f, w, h};
  cudaMemcpyToSymbol(cView, &v, sizeof(v));
  int *dwells;
  cudaMalloc(&dwells, w * h * sizeof(int));
  marianiSilver<<<dim3(SUBDIV, SUBDIV), dim3(16, 16)>>>(dwells, 0, 0, w / SUBDIV, 1);
  cudaDeviceSynchronize();
  int errs = 0;
  cudaMemcpyFromSymbol(&errs, gLaunchErrors, sizeof(int));
  printf("launch errors %d\n", errs);
  return 0;
}
