// A callee in another object using other helpers (and one the kernel's object uses too).
__device__ __noinline__ float b_reduce(float x)
{
    for (int d = 16; d > 0; d /= 2)
        x += __shfl_xor_sync(0xffffffffu, x, d);
    unsigned any = __any_sync(0xffffffffu, x > 0.0f);
    return any ? x + __shfl_down_sync(0xffffffffu, x, 1) : x;
}

// Another kernel, with a helper only it lists.
__global__ void unused_vote(int *p)
{
    p[threadIdx.x] = __all_sync(0xffffffffu, p[threadIdx.x] > 0);
}
