__device__ int b_table[4] = {1, 2, 3, 4};
__device__ int b_func(int x) { return b_table[x & 3] * x; }
