// Device code no host code launches.
__device__ int b_helper(int x) { return x * 2; }
__global__ void k_b_unlaunched(int *p) { p[0] = b_helper(p[1]); }
