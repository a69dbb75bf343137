// A declaration with a size of its own.
extern __device__ int table[7];

__global__ void kc(int *p) { p[0] = table[threadIdx.x]; }
