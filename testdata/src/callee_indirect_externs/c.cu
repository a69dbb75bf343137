__device__ int f1(int);
__device__ int (*table[1])(int) = {f1};
__device__ __noinline__ int f7(int x) { return table[x & 1](x); }
__device__ __noinline__ int f8(int x) { return x; }
__device__ __noinline__ int f9(int x)
{
    { int *m = (int *)malloc(16); if (m) { m[0] = x; x = m[0] + 1; free(m); } }
    { int (*volatile fp)(int) = f9; x = fp(x); }
    return x;
}
