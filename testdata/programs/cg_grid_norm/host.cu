#include <cstdio>
#include <cuda_runtime.h>

__global__ void GridNormalize(float *x, int n, float *normOut, float *maxOut);

int main() {
  int dev = 0, sms = 0, perSm = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, GridNormalize, 256, 0);
  int blocks = sms * perSm;
  if (blocks > 1024) blocks = 1024;
  int n = 1 << 20;
  float *x, *norm, *peak;
  cudaMalloc(&x, n * sizeof(float));
  cudaMallocManaged(&norm, sizeof(float));
  cudaMallocManaged(&peak, sizeof(float));
  cudaMemset(x, 0, n * sizeof(float));
  *peak = 0;
  void *args[] = {&x, &n, &norm, &peak};
  cudaLaunchCooperativeKernel((void *)GridNormalize, blocks, 256, args, 0, 0);
  cudaDeviceSynchronize();
  printf("norm %f max %f\n", *norm, *peak);
  return 0;
}
