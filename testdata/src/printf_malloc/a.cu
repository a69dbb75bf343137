// printf, malloc/free and assert: calls into functions the driver provides.
#include <cstdio>
#include <cassert>
extern __device__ int *alloc_buf(int n);

__global__ void k_malloc(int n)
{
    int *p = alloc_buf(n);
    printf("thread %d got %p\n", threadIdx.x, p);
    free(p);
}
