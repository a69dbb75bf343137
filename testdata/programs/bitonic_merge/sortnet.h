#pragma once
#define SORT_TILE 1024
#define SORT_THREADS 512

__device__ void cmpSwap(unsigned &ka, unsigned &va, unsigned &kb, unsigned &vb, bool up);
__device__ int mergePathSplit(const unsigned *a, int na, const unsigned *b, int nb, int diag);
__global__ void bitonicTileKernel(unsigned *keys, unsigned *vals, int up);
__global__ void mergePassKernel(const unsigned *ik, const unsigned *iv, unsigned *ok,
                                unsigned *ov, int run, int n);
