#include "heavy.cuh"
__global__ void k_light(float *out, const float *in) { out[threadIdx.x] = heavy(in, threadIdx.x); }
__global__ void k_alone(float *out) { out[threadIdx.x] = 1.0f; }
