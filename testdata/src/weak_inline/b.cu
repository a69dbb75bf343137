#include "common.cuh"
__global__ void k_weak_b(int *out, float *f)
{
    out[threadIdx.x] = tsum<int>(3, out[2]) + inl_fn(4) + tvar<int>;
    f[threadIdx.x] = tsum<float>(f[0], 1.5f);
}
