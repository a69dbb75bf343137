// Another object's kernel doing the same.
#include <cuda_pipeline.h>
__device__ int src_c[64];
__global__ void k(int *o) {
  int x = o ? o[threadIdx.x] : 0;
  { __shared__ int s3[64]; __pipeline_memcpy_async(&s3[threadIdx.x % 64], &src_c[(threadIdx.x + x) & 63], 4); __pipeline_commit(); __pipeline_wait_prior(0); x += s3[(threadIdx.x + 1) % 64]; }
  if (o) o[threadIdx.x] = x;
}
