template <int N> __device__ __noinline__ int unused_twice(int x) { return x * N + 7; }
template __device__ int unused_twice<3>(int);

template <int N> __device__ __noinline__ int used(int x) { return x * N - 1; }

__global__ void kb(int *p) { p[0] = used<2>(p[2]); }
