// Error case: the same strong device function defined in two TUs.
__device__ __noinline__ int dup_fn(int x) { return x + 1; }
__global__ void k_dupf_a(int *o) { o[0] = dup_fn(o[1]); }
