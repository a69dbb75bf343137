__device__ int f1(int);
__device__ __noinline__ int f3(int x) { return x + 3; }
__device__ __noinline__ int f4(int x) { return x * 4; }
__device__ int (*table_b[2])(int) = {f3, f4};
__global__ void k_b(int *o) { o[0] = f1(table_b[o[1] & 1](o[2])); }
