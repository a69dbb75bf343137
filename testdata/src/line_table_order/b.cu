__device__ __forceinline__ int i1(int x) { return x ^ 7; }
__device__ __forceinline__ int i2(int x) { return i1(x) * 11; }
__device__ __noinline__ int h(int x) { return i1(x) + 9; }
__device__ __noinline__ int g(int x) { return i2(h(x)) * 2; }
__global__ void k_order_b(int *o) { o[0] = h(o[2]) + i2(o[3]); }
