#pragma once
#include <cuda_runtime.h>

struct Dims { int rows, cols; };
extern __device__ Dims gDims;

__device__ int rowMajor(int r, int c, int cols);
__device__ bool inside(int r, int c);
