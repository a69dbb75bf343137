__device__ int dead_var_b[8];
__device__ __noinline__ int used_b(int x) { return x * 3; }
__device__ __noinline__ int dead_b(int x) { return x - dead_var_b[x & 7]; }
__device__ __noinline__ int unreachable_b(int x) { return dead_b(x) + 1; }
__global__ void k_unused_b(int *out) { out[0] = used_b(2); }
