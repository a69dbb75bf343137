// Static __shared__ arrays inside device functions that several kernels call.
extern __device__ float b_reduce(const float *in);

__device__ __noinline__ float a_stage(const float *in)
{
    __shared__ float buf_a[128];
    buf_a[threadIdx.x % 128] = in[threadIdx.x];
    __syncthreads();
    return buf_a[(threadIdx.x + 1) % 128];
}

__shared__ int file_sh[32];

__global__ void k_sh1(const float *in, float *out) { out[threadIdx.x] = a_stage(in) + b_reduce(in); }
__global__ void k_sh2(const float *in, float *out)
{
    __shared__ double k2_local[32];
    k2_local[threadIdx.x % 32] = in[threadIdx.x];
    file_sh[threadIdx.x % 32] = (int)in[0];
    __syncthreads();
    out[threadIdx.x] = a_stage(in) + k2_local[3] + file_sh[5];
}
