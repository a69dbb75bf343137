#include "imaging.cuh"

__constant__ TexHandles cHandles;

__device__ float luminance(float4 c) { return 0.299f * c.x + 0.587f * c.y + 0.114f * c.z; }

__device__ float sobelAt(cudaTextureObject_t t, float x, float y) {
  float p[3][3];
#pragma unroll
  for (int j = -1; j <= 1; ++j)
#pragma unroll
    for (int i = -1; i <= 1; ++i) p[j + 1][i + 1] = luminance(tex2D<float4>(t, x + i, y + j));
  float gx = p[0][2] + 2.f * p[1][2] + p[2][2] - p[0][0] - 2.f * p[1][0] - p[2][0];
  float gy = p[2][0] + 2.f * p[2][1] + p[2][2] - p[0][0] - 2.f * p[0][1] - p[0][2];
  return sqrtf(gx * gx + gy * gy);
}

__device__ float gatherMean(cudaTextureObject_t t, float x, float y) {
  float4 r = tex2Dgather<float4>(t, x, y, 0);
  float4 g = tex2Dgather<float4>(t, x, y, 1);
  return 0.125f * (r.x + r.y + r.z + r.w + g.x + g.y + g.z + g.w);
}
