// __device__ globals, initialized and not, defined and used across TUs.
__device__ int g_init_a = 42;
__device__ int g_zero_a;
__device__ double g_arr_a[16] = {1.0, 2.0, 3.0};
extern __device__ int g_init_b;
extern __device__ float g_zero_b[64];

__global__ void k_globals_a(int *out)
{
    out[0] = g_init_a + g_zero_a + g_init_b + (int)g_zero_b[threadIdx.x] + (int)g_arr_a[3];
    g_zero_a = out[1];
}
