// ptxas names dead11 in f1's EXTERNS record (a.cu's table holds dead11's address, and k_a calls
// through a pointer of its prototype) though f1 never calls it: nvlink follows calls, so k's
// callee chain f8 -> f7 -> f1 does not bring dead11's __assertfail into k's EXTERNS
// ([malloc, free]) (found by scripts/fuzz-equiv).
__device__ int f8(int);
__device__ int dead11(int);
__device__ int f1(int);
__device__ int g15;
__device__ int (*table_a[2])(int) = {f1, dead11};
__device__ __noinline__ int f1(int x)
{
    g15 = x;
    x = f8(x);
    return x * 6 + 59;
}
extern __constant__ int (*table_c[1])(int);
__global__ void k_a(int *o)
{
    int x = o ? o[threadIdx.x] : 0;
    x = f8(x);
    x = table_c[0](x);
    if (o) o[threadIdx.x] = x;
}
