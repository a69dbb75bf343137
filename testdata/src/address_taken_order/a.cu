// Address-taken functions across objects (found by scripts/fuzz-equiv): the call graph's
// address-taken block merges the objects' lists — c.cu's f1, new, goes right after f9, the
// entry c.cu lists before it — and .nv.prototype drops the entries of address-taken
// functions even when they are also called directly (b.cu calls f1).
__device__ __noinline__ int f7(int x) { return x + 7; }
__device__ __noinline__ int f9(int x) { return x * 9; }
__device__ __noinline__ int f1(int x) { return x - 1; }
__device__ int (*table_a[2])(int) = {f7, f9};
__global__ void k_a(int *o) { o[0] = table_a[o[1] & 1](o[2]); }
