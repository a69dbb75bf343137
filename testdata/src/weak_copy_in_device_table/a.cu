// The first copy of a weak template function, which the link keeps: called directly.
template <int N> __device__ __noinline__ int scaled(int x) { return x * N + 1; }
__global__ void k_direct(int *o) { o[0] = scaled<3>(o[0]); }
