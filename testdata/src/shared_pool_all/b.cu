// A kernel that uses no shared memory (see a.cu).
__global__ void k_plain(int *o) { o[threadIdx.x] = 3; }
