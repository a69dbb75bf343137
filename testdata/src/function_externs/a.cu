// EXTERNS of functions that are not kernels (found by scripts/fuzz-equiv): nvlink keeps only
// the names a function lists itself that are still undefined (and kernels it launches) and
// gathers nothing from its callees, so `forward`'s record, which named only `printer`
// (defined in b.cu), goes. A kernel gathers its callees' names; one whose stack is unbounded
// gets CRS_STACK_SIZE before the EXTERNS record the link adds.
__device__ int printer(int);
__device__ __noinline__ int forward(int x) { return printer(x) + 1; }
__device__ __noinline__ int forward_rec(int x)
{
    if (x > 4) x = forward_rec(x - 1);
    return printer(x) + 1;
}
__global__ void k_forward(int *o) { o[0] = forward(o[1]) + forward_rec(o[2]); }
