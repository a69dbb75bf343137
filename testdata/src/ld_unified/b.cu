__device__ __noinline__ int b_plain(const int *p)
{
    int v;
    asm volatile("ld.u32 %0, [%1].unified;" : "=r"(v) : "l"(p + 1));
    return v + 1;
}
