extern __device__ int rec_even(int n);
__device__ int rec_odd(int n) { return n == 0 ? 0 : rec_even(n - 1); }

__global__ void k_rec_b(int *out) { out[threadIdx.x] = rec_odd(out[2]); }
__global__ void k_norec(int *out) { out[threadIdx.x] = 5; }
