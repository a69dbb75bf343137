extern __shared__ int dyn_c[];
__global__ void k_c(int *o) { dyn_c[threadIdx.x] = 1; __syncthreads(); if (o) o[1] = dyn_c[2]; }
