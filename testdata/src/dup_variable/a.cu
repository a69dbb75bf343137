// Error case: the same __device__ variable defined in two TUs.
__device__ int dup_var = 1;
__global__ void k_dupv_a(int *o) { o[0] = dup_var; }
