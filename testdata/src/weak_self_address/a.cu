#include "holder.cuh"
template struct holder<int>;

__device__ __noinline__ int leaf(int x) { return x * 3; }

__global__ void k_a(int *p) { p[threadIdx.x] = leaf(p[threadIdx.x]); }
