// A kernel calling device functions from two other files, launched from host code.
extern __device__ int b_func(int);
extern __device__ int c_func(int);

__global__ void k_main(int *p) { p[threadIdx.x] = b_func(p[0]) + c_func(p[1]); }

void run(int *d) { k_main<<<1, 32>>>(d); }
