__device__ int g(int);
__device__ __noinline__ int dead_a(int x) { return x * 7 + g(x); }
__global__ void k_g_a(int *o) { o[0] = g(o[1]) + 3; }
