// A device function copying asynchronously into its own static array and an extern one,
// called by a kernel without static objects and by one with its own.
#include <cuda_pipeline.h>
extern __shared__ float dyn[];
__device__ __noinline__ void stage(const float *in, int n) {
  __shared__ float4 t[16];
  __pipeline_memcpy_async(&t[threadIdx.x % 16], (const float4*)&in[4*threadIdx.x], 16);
  __pipeline_memcpy_async(&dyn[threadIdx.x + 8], &in[threadIdx.x], 4);
  __pipeline_commit(); __pipeline_wait_prior(0);
}
__global__ void k2(const float *in, float *out) { stage(in, 3); __syncthreads(); out[threadIdx.x] = dyn[threadIdx.x]; }
__global__ void k3(const float *in, float *out) { __shared__ int x[3]; x[threadIdx.x%3] = 1; stage(in, 4); __syncthreads(); out[threadIdx.x] = dyn[threadIdx.x] + x[1]; }
