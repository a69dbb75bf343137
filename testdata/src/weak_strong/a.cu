// An explicitly weak definition (a.cu) against a strong one (b.cu) that comes later.
__device__ __attribute__((weak)) __noinline__ int ws_fn(int x) { return x + 1; }
__device__ __attribute__((weak)) int ws_var = 1;

__global__ void k_ws_a(int *out) { out[threadIdx.x] = ws_fn(out[0]) + ws_var; }
