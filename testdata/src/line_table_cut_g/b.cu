__device__ __noinline__ int dead_b(int x) { return x * 5; }
__device__ __noinline__ int h(int x) { return x + 9; }
__device__ __noinline__ int g(int x) { return h(x) * 2; }
__global__ void k_g_b(int *o) { o[0] = h(o[2]) + g(o[1]); }
