// A later copy of the same weak function, which the link drops; this object takes its
// address. nvlink's .nv.callgraph still lists the function as address-taken (the kept
// copy is a.cu's).
template <int N> __device__ __noinline__ int twice(int x) { return x * N + 1; }
__global__ void k_pointer(int *o) {
  int (*volatile fp)(int) = twice<2>;
  o[0] = fp(o[0]);
}
