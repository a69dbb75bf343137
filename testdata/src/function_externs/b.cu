#include <cstdio>
#include <cassert>
__device__ __noinline__ int printer(int x) { printf("%d", x); return x; }
__device__ __noinline__ int checker(int x) { assert(x != 5); return x; }
__device__ __noinline__ int both_rec(int x)
{
    if (x > 35) x = both_rec(x - 1);
    x = printer(x);
    return checker(x);
}
__global__ void k_both(int *o) { o[0] = both_rec(o[1]); }
