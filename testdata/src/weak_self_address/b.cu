#include "holder.cuh"
template struct holder<int>;

__global__ void k_b(int *p) { p[threadIdx.x] += 1; }
