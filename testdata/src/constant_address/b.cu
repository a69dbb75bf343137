extern __device__ int g_target;
__device__ __noinline__ int twice(int x) { return 2 * x; }
__constant__ int (*c_fn)(int) = twice;
__constant__ int *c_ptr_b = &g_target;
__global__ void k_call_ptr(int *o) { o[0] = c_fn(*c_ptr_b); }
