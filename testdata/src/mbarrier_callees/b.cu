// Functions using mbarriers, and one reaching another.
#include <cuda/barrier>
using bar_t = cuda::barrier<cuda::thread_scope_block>;

__device__ __noinline__ void stage(float *d)
{
    __shared__ bar_t bar;
    if (threadIdx.x == 0)
        init(&bar, blockDim.x);
    __syncthreads();
    d[threadIdx.x] *= 2.f;
    bar.arrive_and_wait();
}

__device__ __noinline__ void stage2(float *d)
{
    __shared__ bar_t bar2[3];
    if (threadIdx.x < 3)
        init(&bar2[threadIdx.x], blockDim.x);
    __syncthreads();
    d[threadIdx.x] *= 3.f;
    bar2[d[0] > 0].arrive_and_wait();
}

__device__ __noinline__ void mid(float *d)
{
    stage(d);
    d[1] += 1.f;
}

__global__ void same_tu(float *d)
{
    d[threadIdx.x] += 1.f;
    stage(d);
}
