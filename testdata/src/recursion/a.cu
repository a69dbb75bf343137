// Recursion (direct in a.cu, mutual across TUs): stack size cannot be bounded statically.
extern __device__ int rec_odd(int n);
__device__ int rec_even(int n) { return n == 0 ? 1 : rec_odd(n - 1); }
__device__ int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }

__global__ void k_rec(int *out) { out[threadIdx.x] = fact(out[0]) + rec_even(out[1]); }
