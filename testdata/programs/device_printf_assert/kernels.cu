#include "diag.cuh"

__global__ void scaleKernel(float *x, int n, float s, int verbose) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = checkedScale(x[i], s);
  x[i] = v;
  if (verbose && threadIdx.x == 0) report(STAGE_SCALE, blockIdx.x, v);
}

__global__ void normKernel(const float *x, int n, double *out) {
  __shared__ double acc;
  if (threadIdx.x == 0) acc = 0.0;
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) atomicAdd(&acc, (double)checkedScale(x[i], x[i]));
  __syncthreads();
  if (threadIdx.x == 0) {
    *out = sqrt(acc);
    report(STAGE_STORE, blockIdx.x, *out);
    printf("norm of %d values from %p: %g, first %f, n as long long %lld, char %c\n", n, (const void *)x, *out,
           (double)x[0], (long long)n, 'x');
  }
}

__global__ void validateKernel(const unsigned *tags, int n, unsigned expect) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && tags[i] != expect) {
    printf("tag mismatch at %d: %#x != %#x\n", i, tags[i], expect);
    __trap();
  }
}
