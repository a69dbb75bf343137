__device__ int f9(int);
__device__ int f1(int);
__device__ int f4(int);
__device__ int (*table_c[3])(int) = {f9, f1, f4};
__global__ void k_c(int *o) { o[0] = table_c[o[1] % 3](o[2]); }
