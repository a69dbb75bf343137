// extern __shared__ (dynamic shared memory) used by kernels and by a shared callee.
extern __shared__ float dyn_smem[];
extern __device__ float b_sum_dyn(int n);

__global__ void k_dyn_a(float *out, int n)
{
    dyn_smem[threadIdx.x] = out[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = b_sum_dyn(n);
}

__global__ void k_dyn_static_a(float *out)
{
    __shared__ float fixed[64];
    extern __shared__ int dyn_int[];
    fixed[threadIdx.x % 64] = out[0];
    dyn_int[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = fixed[1] + dyn_int[2];
}
