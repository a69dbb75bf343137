__device__ __noinline__ int ws_fn(int x) { return x * 100; }
__device__ int ws_var = 100;

__global__ void k_ws_b(int *out) { out[threadIdx.x] = ws_fn(out[1]) - ws_var; }
