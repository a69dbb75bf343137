// Unused kernels, functions and variables next to a used chain.
extern __device__ int used_b(int);
__device__ int dead_var_a = 5;
__constant__ int dead_const_a = 9;
__device__ __noinline__ int dead_a(int x) { return x + dead_var_a; }
__device__ __noinline__ int dead_chain_a(int x) { return dead_a(x) * 2; }
__global__ void k_live(int *out) { out[threadIdx.x] = used_b(out[0]); }
__global__ void k_unused_a(int *out) { out[0] = dead_chain_a(out[1]); }
