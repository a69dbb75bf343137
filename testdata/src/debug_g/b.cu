extern __device__ float c_scale(float v);

__device__ __noinline__ int b_add(int x, int y) { return x + y + (int)c_scale((float)x); }

__global__ void k_b(int *out) { out[threadIdx.x] = b_add(threadIdx.x, 7); }
