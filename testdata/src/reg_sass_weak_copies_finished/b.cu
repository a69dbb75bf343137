// The same templates, another object's.
#include <cuda_pipeline.h>
__device__ int src_b[64];
__device__ __noinline__ int f5(int x) {
  { __shared__ int a3[64]; __pipeline_memcpy_async(&a3[threadIdx.x % 64], &src_b[(threadIdx.x + x) & 63], 4); __pipeline_commit(); __pipeline_wait_prior(0); x += a3[(threadIdx.x + 1) % 64]; }
  return x;
}
__global__ void k6(int *o) { int x = o ? o[threadIdx.x] : 0; if (o) o[threadIdx.x] = x; }
