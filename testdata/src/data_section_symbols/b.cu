__device__ int g_init = 99;
__global__ void k_b(int *o) { o[0] = g_init; }
