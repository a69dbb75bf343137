// Defines hh before pp (its symbol table and call-graph list name hh first).
__device__ __noinline__ int hh(int x) { return x * 5; }
__device__ __noinline__ int pp(int x) { return x + 2; }
__device__ int (*tab_c[2])(int) = {pp, hh};
__global__ void kc(int *o) { o[0] = tab_c[o[1]](o[2]) + pp(3); }
