// A device function and a constant other files use; a kernel and a function nobody uses
// (LTO removes them when host code's references are known).
__constant__ float coef[4] = {1.f, 2.f, 3.f, 4.f};

__device__ float scale(float x) { return x * coef[0] / (x + 3.0f) + sqrtf(x); }

__device__ __noinline__ float unused_helper(float x) { return x * x - coef[1]; }

__global__ void k_b_unused(float *out) { out[threadIdx.x] = unused_helper(out[threadIdx.x]); }
