// A later copy of the same weak function, which the link drops, whose address this object's
// __constant__ table holds and its kernel calls through. nvlink drops the table's relocation
// (in every mode, sm_75-sm_120), leaving a null function pointer that k_table calls; it keeps
// the relocation where the table names another object's function or this object's copy
// wins. cubin-ld keeps it, naming the copy the link keeps (a documented difference:
// docs/differences.md; scripts/fuzz-equiv seed 140).
template <int N> __device__ __noinline__ int scaled(int x) { return x * N + 1; }
__constant__ int (*table[1])(int) = {scaled<3>};
__global__ void k_table(int *o) { o[0] = table[o[1] & 0](o[0]); }
