// "Stack size ... cannot be statically determined": nvlink warns once for each callee of the
// kernel through which the stack is unbounded and once for each such indirect call site
// (found by scripts/fuzz-equiv). k_two_callees reaches the recursion through recurse and
// through via (2 warnings); k_two_sites calls twice through tables that may hold recurse (2).
__device__ __noinline__ int recurse(int x) { if (x > 15) x = recurse(x - 1); return x + 1; }
__device__ __noinline__ int via(int x) { return recurse(x) * 2; }
__device__ __noinline__ int plain(int x) { return x * 5; }
__device__ int (*table[2])(int) = {plain, recurse};
__global__ void k_two_callees(int *o)
{
    int x = o[threadIdx.x];
    x = recurse(x);
    x = via(x);
    x = via(x + 1);
    o[threadIdx.x] = x;
}
__global__ void k_two_sites(int *o)
{
    int x = o[threadIdx.x];
    x = table[x & 1](x);
    x = table[x & 1](x + 1);
    o[threadIdx.x] = x;
}
