// -G: a kernel reading __constant__ data of its own and, through a callee, of another file.
__constant__ float table[4] = {1.0f, 2.0f, 3.0f, 4.0f};
__constant__ int bias = 7;
__device__ int counter = 3;
__device__ int *counter_ptr = &counter;
extern __device__ float scaled(float x);

__global__ void k_const(float *out)
{
    __shared__ float stage[32];
    extern __shared__ float spill[];
    stage[threadIdx.x & 31] = table[threadIdx.x & 3] + bias + *counter_ptr;
    spill[threadIdx.x] = stage[(threadIdx.x + 1) & 31];
    __syncthreads();
    out[threadIdx.x] = scaled(spill[threadIdx.x]);
}
