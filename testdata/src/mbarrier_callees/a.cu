// Kernels reaching mbarrier users in b.cu: one directly, one two of them, one through a
// function without any, one with an mbarrier of its own.
#include <cuda/barrier>
using bar_t = cuda::barrier<cuda::thread_scope_block>;

__device__ void stage(float *d);
__device__ void stage2(float *d);
__device__ void mid(float *d);

__global__ void k_plain(float *d)
{
    d[threadIdx.x] += 1.f;
    stage(d);
}

__global__ void k_two(float *d)
{
    stage(d);
    stage2(d);
}

__global__ void k_chain(float *d) { mid(d); }

__global__ void k_own(float *d)
{
    __shared__ bar_t mine;
    if (threadIdx.x == 0)
        init(&mine, blockDim.x);
    __syncthreads();
    stage(d);
    mid(d);
    mine.arrive_and_wait();
}
