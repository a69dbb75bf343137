// Device function pointers whose targets live in another TU, stored in a __device__ table.
typedef int (*op_t)(int);
extern __device__ int op_inc(int);
extern __device__ int op_dbl(int);
extern __device__ op_t g_single;

__device__ op_t g_ops[2] = {op_inc, op_dbl};

__global__ void k_fp(int *out, int which)
{
    op_t f = g_ops[which & 1];
    out[threadIdx.x] = f(out[threadIdx.x]) + g_single(3);
}
