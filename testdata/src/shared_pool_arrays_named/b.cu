// A kernel using an extern __shared__ array (aligned 64).
extern __shared__ __align__(64) char fz_dyn_b[];
__global__ void fz_k7(int *o) { int x = o ? o[threadIdx.x] : 0; fz_dyn_b[threadIdx.x] = (char)x; x += (int)fz_dyn_b[0]; if (o) o[threadIdx.x] = x; }
