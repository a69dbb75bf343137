// The constant k reads lands after this file's first one: its offset changes in the link.
__constant__ int before = 1;
__constant__ int later = 7;

__device__ __noinline__ int g(int x) { return x * 3; }

__global__ void k_b(int *out) { out[0] = before; }
