// The second kernel, its extern array aligned 32.
extern __shared__ __align__(32) double dyn_b[];

__global__ void k_b(int *o)
{
    dyn_b[threadIdx.x] = o[threadIdx.x];
    __syncthreads();
    o[threadIdx.x] = (int)dyn_b[1];
}
