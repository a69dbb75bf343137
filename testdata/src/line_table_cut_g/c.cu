__device__ __noinline__ int dead_c(int x) { return x * 13; }
