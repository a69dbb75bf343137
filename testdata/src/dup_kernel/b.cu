__global__ void k_dup(int *o) { o[0] = 2; }
