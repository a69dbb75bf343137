// The kernel using a.cu's data.
extern __device__ int g;
extern __device__ int g_init;
extern __constant__ int c_tab[4];

__global__ void k(int *o) { *o = g + g_init + c_tab[threadIdx.x & 3]; }
