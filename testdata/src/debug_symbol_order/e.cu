// A device function with a static __shared__ array (.nv_debug.shared and its symbol).
__device__ __noinline__ float fs(float x) { __shared__ float t[32]; t[threadIdx.x & 31] = x; __syncwarp(); return t[0]; }
__global__ void kc(float *p) { p[threadIdx.x] = fs(p[threadIdx.x]); }
