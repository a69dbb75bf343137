// A kernel, a weak template both files use, and a function nothing calls.
__device__ int g(int);
template <typename T> __device__ __noinline__ T tw(T x) { return x * 3 + 1; }
__device__ __forceinline__ int inl(int x) { return x ^ 5; }
__device__ __noinline__ int dead_a(int x) { return x * 7 + g(x); }
__global__ void k_cut_a(int *o) { o[0] = g(o[1]) + tw(o[2]) + inl(o[3]); }
