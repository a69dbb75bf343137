// Epilogue shared by the tensor-core and FMA CuTe kernels: a __constant__ parameter block set
// from the host, a linear combination with ReLU and clamp, and a counter of finished tiles.
#include "gemm_api.cuh"

__constant__ EpilogueParams g_epilogue;
__device__ unsigned long long g_tiles_done;

__device__ float epilogue_apply(float acc, float c_old) {
  const EpilogueParams &p = g_epilogue;
  float v = p.alpha * acc + (p.beta != 0.f ? p.beta * c_old : 0.f);
  if (p.relu) v = fmaxf(v, 0.f);
  return fminf(fmaxf(v, p.lo), p.hi);
}

__device__ void epilogue_tile_done(int tid) {
  if (tid == 0) atomicAdd(&g_tiles_done, 1ull);
}

void set_epilogue(const EpilogueParams &p) {
  cudaMemcpyToSymbol(g_epilogue, &p, sizeof p);
  unsigned long long zero = 0;
  cudaMemcpyToSymbol(g_tiles_done, &zero, sizeof zero);
}

unsigned long long tiles_done() {
  unsigned long long n = 0;
  cudaMemcpyFromSymbol(&n, g_tiles_done, sizeof n);
  return n;
}
