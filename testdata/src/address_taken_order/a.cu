// Address-taken functions across objects (found by scripts/fuzz-equiv): the call graph's
// address-taken block lists the functions where their symbols first appear among the inputs —
// c.cu takes f1's address, but it goes where a.cu's symbol table names it (see
// address_taken_symbol_order) — and .nv.prototype drops the entries of address-taken
// functions even when they are also called directly (b.cu calls f1).
__device__ __noinline__ int f7(int x) { return x + 7; }
__device__ __noinline__ int f9(int x) { return x * 9; }
__device__ __noinline__ int f1(int x) { return x - 1; }
__device__ int (*table_a[2])(int) = {f7, f9};
__global__ void k_a(int *o) { o[0] = table_a[o[1] & 1](o[2]); }
