__device__ int f1(int);
__device__ int f7(int);
__constant__ int (*table_c[1])(int) = {f7};
__device__ __noinline__ int f7(int x) { return f1(x); }
__device__ __noinline__ int f8(int x) { return f7(x) + 1; }
