// sm_100a code: its .nv.compat records INST_TCGEN05_MMA.
__device__ __noinline__ int b_scale(int x) { return x * 3 + 1; }

__global__ void kb(int *p) { p[threadIdx.x] = b_scale(threadIdx.x); }
