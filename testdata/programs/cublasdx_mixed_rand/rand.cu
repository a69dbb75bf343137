// Input generation with cuRANDDx thread generators: Philox4_32 uniforms four at a time into
// halves, XORWOW normals (inverse CDF) into doubles.
#include "dx.cuh"

__global__ void fillHalfUniform(__half *out, int n, unsigned long long seed) {
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  PhiloxRNG rng(seed, tid, 0);
  curanddx::uniform<float> dist(-1.f, 1.f);
  for (int i = tid * 4; i < n; i += gridDim.x * blockDim.x * 4) {
    float4 v = dist.generate4(rng);
    out[i] = __float2half(v.x);
    if (i + 1 < n) out[i + 1] = __float2half(v.y);
    if (i + 2 < n) out[i + 2] = __float2half(v.z);
    if (i + 3 < n) out[i + 3] = __float2half(v.w);
  }
}

__global__ void fillDoubleNormal(double *out, int n, unsigned long long seed) {
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  XorwowRNG rng(seed, tid, 0);
  curanddx::normal<double> dist(0.0, 0.5);
  for (int i = tid; i < n; i += gridDim.x * blockDim.x) out[i] = dist.generate(rng);
}
