// Both objects instantiate the same template function, weak in each, and nothing calls it:
// the link removes it. The second object's copy is discarded for the first one's; nvlink
// clears the address range of the removed function's frame entry in the first object only
// (the discarded copy's entry keeps its range). A live weak function shared the same way
// (`used`) keeps its range in both.
template <int N> __device__ __noinline__ int unused_twice(int x) { return x * N + 7; }
template __device__ int unused_twice<3>(int);

template <int N> __device__ __noinline__ int used(int x) { return x * N - 1; }

__global__ void ka(int *p) { p[0] = used<2>(p[1]); }
