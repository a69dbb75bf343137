typedef int (*op_t)(int);
__device__ int op_inc(int x) { return x + 1; }
__device__ int op_dbl(int x) { return x * 2; }
__device__ op_t g_single = op_inc;

__global__ void k_fp_b(int *out, int which)
{
    op_t f = which ? op_inc : op_dbl;
    out[threadIdx.x] = f(out[0]);
}
