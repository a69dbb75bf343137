#include <cstdio>
#include "scratch.cuh"

__global__ void meanAndPositives(const float *x, int n, float *mean, int *positives);
__global__ void pairSums(const int2 *p, int n, float *out);

__global__ void argmaxKernel(const float *x, int n, int *where) {
  extern __shared__ double dstage[];
  dstage[threadIdx.x] = threadIdx.x < n ? x[threadIdx.x] : 0.0;
  __syncthreads();
  int best = blockMaxIndex(x, n);
  float tot = blockSumShared((float)dstage[threadIdx.x]);
  if (threadIdx.x == 0) { *where = best; gFlags[0] = tot > 0.f; }
}

__global__ void byteFlags(const unsigned char *b, int n, int *count) {
  extern __shared__ unsigned char bytes[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  bytes[threadIdx.x] = i < n ? b[i] : 0;
  __syncthreads();
  int c = blockCountTrue(bytes[threadIdx.x] & 0x80);
  if (threadIdx.x == 0) atomicAdd(count, c);
}

int main() {
  const int n = 1 << 18;
  float *x, *m, *o;
  int *p, *w;
  cudaMallocManaged(&x, n * sizeof(float));
  cudaMallocManaged(&m, sizeof(float));
  cudaMallocManaged(&o, 1024 * sizeof(float));
  cudaMallocManaged(&p, sizeof(int));
  cudaMallocManaged(&w, sizeof(int));
  meanAndPositives<<<128, 256, 256 * sizeof(float)>>>(x, n, m, p);
  pairSums<<<n / 2 / 256, 256, 256 * sizeof(int2)>>>((const int2 *)x, n / 2, o);
  argmaxKernel<<<1, 1024, 1024 * sizeof(double)>>>(x, n, w);
  byteFlags<<<n * 4 / 512, 512, 512>>>((const unsigned char *)x, n * 4, p);
  cudaDeviceSynchronize();
  printf("%f %d %d\n", *m, *p, *w);
  return 0;
}
