// A grid sync and an early exit beside the copies.
#include <cuda_pipeline.h>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void g_sync(const float *in, float *out)
{
    __shared__ float s[64];
    __pipeline_memcpy_async(&s[threadIdx.x], &in[threadIdx.x], 4);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    out[blockIdx.x * 64 + threadIdx.x] = s[threadIdx.x];
    cg::this_grid().sync();
    out[threadIdx.x] += 1.f;
}
__global__ void early_exit_cp(const float *in, float *out, int n, int *cnt)
{
    int i = blockIdx.x * 64 + threadIdx.x;
    if (i >= n) return;
    __shared__ float s[64];
    __pipeline_memcpy_async(&s[threadIdx.x], &in[i], 4);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    out[i] = s[threadIdx.x];
    __threadfence();
    atomicAdd(cnt, 1);
    __threadfence_block();
    out[i] += 1;
}
