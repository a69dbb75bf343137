__device__ __noinline__ int fam_b(int x) { return x * 7 + 3; }
