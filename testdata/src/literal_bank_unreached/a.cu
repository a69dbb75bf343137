// A function with a literal bank (.nv.constant2.<fn>: its double constants) that only a table
// points at and no kernel can call: nvlink keeps the function but drops its bank, and writes
// the literals' offsets into its code as if the bank were at 0, in every final link
// (found by scripts/fuzz-equiv).
__device__ __noinline__ int lit(int x)
{
    return (int)((double)x * 6.6037118690784746 + 787629015.94597459 / (double)(x | 1));
}
__device__ int (*table[1])(int) = {lit};
__global__ void k(int *o) { o[0] = 1; }
