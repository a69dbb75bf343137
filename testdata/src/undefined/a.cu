// Error case: a function and a variable that no input defines.
extern __device__ int missing_fn(int);
extern __device__ int present_fn(int);
__global__ void k_undef(int *out) { out[threadIdx.x] = missing_fn(out[0]) + present_fn(1); }
