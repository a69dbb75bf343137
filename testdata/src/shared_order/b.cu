__device__ __noinline__ float h_both(float x)
{
    __shared__ float both_f[32];   // reached by k1 and k2
    both_f[threadIdx.x % 32] = x;
    __syncthreads();
    return both_f[5];
}

__device__ __noinline__ float h_k1(float x)
{
    __shared__ double k1_only_d[4];   // only k1 reaches it: laid out with k1's own
    __shared__ int k1_only_i[64];
    k1_only_d[threadIdx.x % 4] = x;
    k1_only_i[threadIdx.x % 64] = (int)x;
    __syncthreads();
    return k1_only_d[1] + k1_only_i[2];
}
