__device__ __noinline__ int mm_b(int x) { return x * 9; }
