// sm_100+: kernels that call nothing, with asynchronous copies (cp.async: three dummy loads
// before each LDGSTS) and fences. nvlink's re-finalization keeps every dummy load of such a
// kernel, those before its fences too, but still drops a MEMBAR.ALL.CTA before a wider
// MEMBAR (cubin-ld refused these kernels).
#include <cuda_pipeline.h>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void kf(const float *in, float *out, int *flag)
{
    __shared__ float s[64];
    __pipeline_memcpy_async(&s[threadIdx.x], &in[threadIdx.x], sizeof(float));
    __pipeline_commit();
    __pipeline_wait_prior(0);
    out[threadIdx.x] = s[threadIdx.x ^ 1];
    __threadfence();
    if (threadIdx.x == 0) atomicAdd(flag, 1);
    __pipeline_memcpy_async(&s[threadIdx.x], &in[threadIdx.x + 64], sizeof(float));
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __threadfence_block();
    out[threadIdx.x + 64] = s[threadIdx.x];
}
__global__ void sys_fence(const float *in, float *out, volatile int *flag)
{
    __shared__ float s[64];
    __pipeline_memcpy_async(&s[threadIdx.x], &in[threadIdx.x], 4);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    out[threadIdx.x] = s[threadIdx.x];
    __threadfence_system();
    if (threadIdx.x == 0) *flag = 1;
}
__global__ void loop_fence(const float *in, float *out, int n, int *cnt)
{
    __shared__ float s[64];
    for (int k = 0; k < n; ++k) {
        __pipeline_memcpy_async(&s[threadIdx.x], &in[k * 64 + threadIdx.x], 4);
        __pipeline_commit();
        __pipeline_wait_prior(0);
        out[k * 64 + threadIdx.x] = s[threadIdx.x];
        __threadfence();
        if (threadIdx.x == 0) atomicAdd(cnt, 1);
    }
}
