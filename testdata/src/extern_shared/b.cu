extern __shared__ float dyn_smem[];

__device__ __noinline__ float b_sum_dyn(int n)
{
    float s = 0;
    for (int i = 0; i < n; ++i) s += dyn_smem[i];
    return s;
}

__global__ void k_dyn_b(float *out, int n)
{
    extern __shared__ double dyn_b[];
    dyn_b[threadIdx.x] = out[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = b_sum_dyn(n) + dyn_b[0];
}
