// A callee without shared memory.
__device__ __noinline__ int scale(int x) { return 3 * x + 1; }
