__device__ int g_c;
__global__ void k_c(int *o) { g_c = o[0]; }
