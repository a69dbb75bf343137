// A kernel's literal bank (.nv.constant2.<kernel>, sm_75-sm_89) gathers the banks of the
// functions it calls: a double constant's 8-byte one, then two jump tables of 4-byte entries.
// nvlink starts each piece aligned for every piece placed before it in that kernel's bank,
// so the second jump table goes at a multiple of 8 after the first (0x30, not 0x2c).
__device__ int pick(int op, int x);
__device__ int pick2(int op, int x);
__device__ double scale(double x, int i);

__global__ void k(const int *ops, int *data, double *dd)
{
    int i = threadIdx.x;
    data[i] = pick(ops[i], data[i]) + pick2(ops[i], data[i]);
    dd[i] = scale(dd[i], i) * 1.2345678901234567;
}

// A kernel with the jump tables only: 4-aligned throughout.
__global__ void k_int(const int *ops, int *data)
{
    int i = threadIdx.x;
    data[i] = pick(ops[i], data[i]) - pick2(ops[i], data[i]);
}
