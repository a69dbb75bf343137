// __constant__ data in several TUs, used across TUs.
__constant__ float c_coeffs_a[32] = {1.0f, 2.0f, 3.0f};
__constant__ int c_scalar_a;
extern __constant__ int c_table_b[17];

__global__ void k_const_a(float *out)
{
    out[threadIdx.x] = c_coeffs_a[threadIdx.x % 32] * c_scalar_a + c_table_b[threadIdx.x % 17];
}
