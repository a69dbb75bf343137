// A later copy of the same weak function, which the link drops, whose address this object's
// __device__ table holds (only its data takes the address) and its kernel calls through.
// nvlink keeps the table's relocation, naming the kept copy, but its .nv.callgraph does not
// list the function as address-taken: .nv.prototype lists it (sm_75-sm_120). cubin-ld listed
// it as address-taken, as where code takes it (testdata address_taken_replaced_weak;
// scripts/fuzz-equiv seed 248). (A __constant__ table: weak_copy_in_function_table.)
template <int N> __device__ __noinline__ int scaled(int x) { return x * N + 1; }
__device__ int (*table[1])(int) = {scaled<3>};
__global__ void k_table(int *o) { o[0] = table[o[1] & 0](o[0]); }
