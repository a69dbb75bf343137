// Shared declarations of the CuTe GEMM program: the epilogue (epilogue.cu) called from both
// kernels' files, and the host wrappers main.cu calls.
#pragma once
#include <cuda_runtime.h>
#include <cuda_fp16.h>

struct EpilogueParams {
  float alpha, beta;
  float lo, hi;  // clamp range
  int relu;
};

// epilogue.cu
extern __constant__ EpilogueParams g_epilogue;
extern __device__ unsigned long long g_tiles_done;
__device__ float epilogue_apply(float acc, float c_old);
__device__ void epilogue_tile_done(int tid);
void set_epilogue(const EpilogueParams &p);
unsigned long long tiles_done();

// tc_gemm.cu: A is MxK, B is NxK (both K-major, "TN"), C is MxN column-major.
void gemm_tensorcore(int m, int n, int k, const __half *A, int lda, const __half *B, int ldb,
                     float *C, int ldc, cudaStream_t stream);
// fma_gemm.cu: the same shapes in float on the FMA pipe.
void gemm_fma(int m, int n, int k, const float *A, int lda, const float *B, int ldb, float *C,
              int ldc, cudaStream_t stream);
