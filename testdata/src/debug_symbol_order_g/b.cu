__global__ void kern(float *p) { p[threadIdx.x] = sqrtf(p[threadIdx.x]); }
