__global__ void child(int *p, int n) { if (threadIdx.x < n) p[threadIdx.x] *= 2; }
