// A kernel with no EXTERNS record of its own (it calls only a function of its own file) whose
// callee calls a driver function: nvlink gives the kernel an EXTERNS record naming it, after
// its other records; a kernel that reaches nothing external gets none (found by
// scripts/fuzz-equiv).
#include <cassert>
__device__ __noinline__ int checked(int x) { assert(x != 90388); return x; }
__global__ void k_reaches_assert(int *o)
{
    int x = o ? o[threadIdx.x] : 0;
    x = checked(x);
    if (o) o[threadIdx.x] = x;
}
__global__ void k_plain(int *o) { o[0] = 1; }
