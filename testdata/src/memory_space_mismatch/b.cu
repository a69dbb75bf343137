__constant__ int g_const = 1;
__managed__ int g_managed = 2;
__device__ int g_fine = 3;
__global__ void k_space_b(int *o) { o[0] = g_const + g_managed + g_fine; }
