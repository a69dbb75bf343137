// A function whose address code takes is kept as one whose address data holds, whether the
// code taking it is kept or not (black-box, nvlink 13.5): twice and thrice, taken only in
// pick_dead (removed), stay; t_store, whose address a kernel stores, stays, but not its
// callee h_store, since no live indirect call could reach it.
typedef int (*op_t)(int);

__device__ op_t slot;

__device__ int twice(int x) { return 2 * x; }
__device__ int thrice(int x) { return 3 * x; }
__device__ op_t pick_dead(int i) { return i ? twice : thrice; }
__device__ int apply_dead(int i, int x) { return pick_dead(i)(x); }

__device__ __noinline__ int h_store(int x) { return x * 5 + 1; }
__device__ __noinline__ int t_store(int x) { return h_store(x) + 11; }

__global__ void k_store(int *o) {
  slot = t_store;
  o[0] = 1;
}
