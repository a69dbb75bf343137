#pragma once
extern __device__ unsigned int gRetired;
extern __device__ float gPartials[];
template <unsigned BS>
__device__ float reduceSmem(float *s, float v);
__device__ bool lastBlockDone(unsigned numBlocks);
