#pragma once
#include <cuda_runtime.h>

struct TexHandles {
  cudaTextureObject_t image;    // uchar4, normalised float reads, linear filtering
  cudaTextureObject_t gradLut;  // linear buffer of float, tex1Dfetch
  cudaSurfaceObject_t edges;    // uchar4 surface
  cudaSurfaceObject_t layers;   // layered float surface
  int width, height, nLayers;
};

extern __constant__ TexHandles cHandles;

__device__ float luminance(float4 c);
__device__ float sobelAt(cudaTextureObject_t t, float x, float y);
__device__ float gatherMean(cudaTextureObject_t t, float x, float y);
