// The callee's own __constant__ data, and a function nothing calls.
__constant__ double weights[2] = {0.5, 0.25};

__device__ float scaled(float x) { return x * (float)weights[threadIdx.x & 1]; }

__device__ float never_called(float x) { return x * 3.0f; }

__global__ void k_other(float *out) { out[0] = scaled((float)weights[0]); }
