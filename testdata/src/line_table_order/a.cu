// Calls b.cu's g and h, so that the output symbol table lists them before b.cu's kernel.
__device__ int g(int);
__device__ int h(int);
__device__ __forceinline__ int an_inlined_helper_with_a_long_name(int x) { return x ^ 5; }
__device__ __forceinline__ int another_inlined_helper(int x)
{
    return an_inlined_helper_with_a_long_name(x) * 3;
}
__global__ void k_order_a(int *o)
{
    o[0] = g(o[1]) + h(o[2]) + another_inlined_helper(o[3]);
}
