// A second recursive function whose address is taken with the same prototype: each indirect
// call site of k_two_sites now warns once for each of the two unbounded targets (4 in all).
__device__ __noinline__ int recurse_b(int x) { if (x > 9) x = recurse_b(x - 2); return x * 3; }
__device__ int (*table_b[1])(int) = {recurse_b};
