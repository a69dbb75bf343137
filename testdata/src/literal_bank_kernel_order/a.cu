// A function's literal bank (its double constants) that several kernels reach: nvlink makes the
// kernels' .nv.constant2.<kernel> banks in the reverse of their code's order (ptxas placed
// k_b's code first: k_a's bank, then k_b's), each holding the literals (scripts/fuzz-equiv).
__device__ __noinline__ int lit(int x)
{
    return (int)((double)x * 6.6037118690784746 + 787629015.94597459 / (double)(x | 1));
}
__global__ void k_a(int *o) { o[0] = lit(o[1]); }
__global__ void k_b(int *o) { o[2] = lit(o[3]); }
