__constant__ unsigned char c_bytes_c[5] = {1, 2, 3};
extern __constant__ float c_coeffs_a[32];

__global__ void k_const_c(float *out) { out[threadIdx.x] = c_coeffs_a[1] + c_bytes_c[threadIdx.x % 5]; }
