// Asynchronous copies into static and extern __shared__ arrays (cp.async): on sm_80-sm_89
// the LDGSTS instruction names the shared address with R_CUDA_ABS20_44 (cubin-ld refused it
// as a type the toolkit never writes in code).
#include <cuda_pipeline.h>
__global__ void k(const float *in, float *out) {
  __shared__ float pad[7];
  __shared__ float s[64];
  __shared__ double d[32];
  pad[threadIdx.x % 7] = 1.f;
  __pipeline_memcpy_async(&s[threadIdx.x], &in[threadIdx.x], sizeof(float));
  __pipeline_memcpy_async(&s[threadIdx.x + 32], &in[threadIdx.x + 32], sizeof(float));
  __pipeline_memcpy_async(&d[threadIdx.x], (const double*)&in[2*threadIdx.x], sizeof(double));
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x ^ 1] + (float)d[threadIdx.x] + pad[2];
}
