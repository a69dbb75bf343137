extern __shared__ float dyn[];
extern __shared__ double dynd[];
__global__ void k_used(float *o) { dyn[threadIdx.x] = o[threadIdx.x]; __syncthreads(); o[threadIdx.x] = dyn[31 - threadIdx.x] + (float)dynd[2]; }
