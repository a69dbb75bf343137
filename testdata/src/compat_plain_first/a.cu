// Plain sm_100 code, linked first into an sm_100a module.
extern __device__ int b_scale(int x);

__global__ void ka(int *p) { p[threadIdx.x] = b_scale(p[threadIdx.x]); }
