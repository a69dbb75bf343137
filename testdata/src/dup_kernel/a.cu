// Error case: the same kernel defined in two TUs.
__global__ void k_dup(int *o) { o[0] = 1; }
