// The possible targets of an indirect call are every function of the link whose address is
// taken with the call's prototype, not only those the compiler saw in the caller's file:
// k_indirect's table holds only the light g1, but b.cu puts heavy (same prototype, many
// registers, printf) in a table of its own, so nvlink gives k_indirect heavy's registers
// and an EXTERNS record naming vprintf (found by scripts/fuzz-equiv).
__device__ __noinline__ int g1(int x) { return x * 2; }
__device__ int (*light_table[1])(int) = {g1};
__global__ void k_indirect(int *o)
{
    int x = o[threadIdx.x];
    x = light_table[x & 1](x);
    o[threadIdx.x] = x;
}
