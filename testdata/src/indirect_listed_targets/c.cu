// A callee that allocates.
__device__ __noinline__ int g(int x)
{
    int *m = (int *)malloc(16);
    if (m) { m[0] = x; x = m[0]; }
    return x;
}
