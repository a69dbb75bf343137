// (see uncallable_table) A call through an int(int) pointer: heavy may be its target, so its
// callee stays.
__device__ __noinline__ int light(int x) { return x * 2; }
__device__ int (*light_table[1])(int) = {light};
__global__ void k_int(int *o) { o[0] = light_table[0](o[1]); }
