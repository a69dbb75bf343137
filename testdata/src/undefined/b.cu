extern __device__ int missing_var;
__device__ __noinline__ int present_fn(int x) { return x + missing_var; }
