__device__ __noinline__ int dup_fn(int x) { return x + 2; }
__global__ void k_dupf_b(int *o) { o[0] = dup_fn(o[2]); }
