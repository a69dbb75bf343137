#include "common.cuh"
__global__ void k_weak_a(int *out) { out[threadIdx.x] = tsum<int>(out[0], 2) + inl_fn(out[1]) + tvar<int>; }
