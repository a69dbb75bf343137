#include <cstdio>
#include <cassert>
__device__ __noinline__ int *alloc_buf(int n)
{
    int *p = (int *)malloc(n * sizeof(int));
    assert(p != nullptr);
    printf("alloc %d\n", n);
    return p;
}

__global__ void k_assert(int v) { assert(v > 0); printf("v=%d\n", v); }
