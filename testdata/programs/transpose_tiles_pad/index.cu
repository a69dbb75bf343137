#include "transpose.cuh"

__device__ Dims gDims;

__device__ int rowMajor(int r, int c, int cols) { return r * cols + c; }
__device__ bool inside(int r, int c) { return r < gDims.rows && c < gDims.cols; }
