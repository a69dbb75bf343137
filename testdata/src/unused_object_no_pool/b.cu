__global__ void k1(double *o) { __shared__ double d[2]; d[threadIdx.x & 1] = o[0]; __syncthreads(); o[1] = d[threadIdx.x & 1 ^ 1]; }
