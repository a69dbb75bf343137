// Constant-bank fields ptxas leaves for the link to fill (sm_75-sm_89, RELA
// R_CUDA_CONST_FIELD21_38): a dense switch's jump table (`LDC R4, c[0x0][R6]` against
// `<fn>.const_opt.*` - 0x8000, in the function's .nv.constant2) and a uniform load of another
// file's __constant__ struct (`ULDC.64 UR4, c[0x0][0x10]` against c_tab + 0x10). ptxas writes
// bank 0 in both; nvlink writes the bank of the section the symbol lies in (2, 3), where the
// table and the struct are.
struct T
{
    int a;
    int b;
    const int *p;
    const int *q;
};
extern __constant__ T c_tab;

__device__ __noinline__ int step(int op, int x)
{
    switch (op) {
    case 0: return x + 1;
    case 1: return x * 3;
    case 2: return x - 7;
    case 3: return x ^ 0x55;
    case 4: return x << 2;
    case 5: return x >> 1;
    default: return 0;
    }
}

__global__ void k(const int *ops, int *data)
{
    int i = threadIdx.x, x = data[i];
    switch (ops[i]) {
    case 0: x += 1; break;
    case 1: x *= 3; break;
    case 2: x -= 7; break;
    case 3: x ^= 0x55; break;
    case 4: x <<= 2; break;
    case 5: x >>= 1; break;
    default: x = 0;
    }
    data[i] = step(ops[i + 1], x) + c_tab.q[i & 15] + c_tab.p[i & 7];
}
