__device__ int dup_var = 2;
__global__ void k_dupv_b(int *o) { o[0] = dup_var; }
