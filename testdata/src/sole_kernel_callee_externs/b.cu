__device__ __noinline__ int helper(int *p)
{
    int *m = (int *)malloc(8);
    if (m) { m[0] = p[0]; p[2] = m[0]; free(m); }
    return 3;
}
