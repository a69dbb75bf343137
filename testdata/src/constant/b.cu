__constant__ int c_table_b[17] = {5, 4, 3, 2, 1};
__constant__ double c_double_b = 3.25;
extern __constant__ int c_scalar_a;

__device__ __noinline__ double b_use_const(int i) { return c_double_b * c_table_b[i % 17] + c_scalar_a; }

__global__ void k_const_b(double *out) { out[threadIdx.x] = b_use_const(threadIdx.x); }
