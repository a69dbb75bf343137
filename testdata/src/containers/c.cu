__device__ int c_func(int x) { return x + 7; }
