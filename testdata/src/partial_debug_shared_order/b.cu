__device__ int g_b;
__global__ void k_b(int *o)
{
    __shared__ int tile[64];
    tile[threadIdx.x] = o[0];
    __syncthreads();
    g_b = tile[threadIdx.x ^ 1];
}
