#include <cstdio>
#include <cuda_runtime.h>

__global__ void gridMomentsKernel(const float *x, int n, float *normalized, float *absMax);

int main() {
  int n = 1 << 22, dev = 0, sms = 0, perSm = 0, threads = 256;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  size_t smem = threads / 16 * sizeof(double);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, gridMomentsKernel, threads, smem);
  float *x, *y, *mx;
  cudaMallocManaged(&x, n * sizeof(float));
  cudaMallocManaged(&y, n * sizeof(float));
  cudaMallocManaged(&mx, sizeof(float));
  for (int i = 0; i < n; ++i) x[i] = (i % 97) * 0.25f;
  *mx = 0.f;
  void *args[] = {&x, &n, &y, &mx};
  dim3 grid(sms * perSm), block(threads);
  cudaLaunchCooperativeKernel((void *)gridMomentsKernel, grid, block, args, smem, 0);
  cudaDeviceSynchronize();
  printf("y[1]=%f absmax=%f\n", y[1], *mx);
  return 0;
}
