__device__ int g_init_b = 7;
__device__ float g_zero_b[64];
__device__ char g_bytes_b[3] = {'x', 'y', 'z'};
extern __device__ int g_init_a;

__global__ void k_globals_b(int *out)
{
    g_zero_b[threadIdx.x] = (float)g_init_a;
    out[threadIdx.x] = g_bytes_b[threadIdx.x % 3] + g_init_b;
}
