extern __device__ int leaf2(int n);
__device__ __noinline__ int leaf(int *buf, int n)
{
    volatile int big[64];
    for (int i = 0; i < 64; ++i) big[i] = buf[i % 20] + i;
    return big[n % 64] + leaf2(n);
}
