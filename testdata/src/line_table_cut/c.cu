// Only functions no kernel reaches: a final link cuts every sequence of this unit.
__device__ __noinline__ int dead_c(int x) { return x * 13; }
__device__ __noinline__ int dead_c2(int x) { return dead_c(x) + 1; }
