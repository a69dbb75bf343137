// Functions no kernel calls: one with __syncthreads() and a shared array, one with named
// barrier 1 too (two barriers), one with none.
__device__ __noinline__ void fs(float4 *p)
{
    __shared__ float4 s2[2];
    s2[threadIdx.x & 1] = p[threadIdx.x];
    __syncthreads();
    p[threadIdx.x] = s2[1 - (threadIdx.x & 1)];
}

__device__ __noinline__ void fnamed(int *p)
{
    p[0] = 1;
    asm volatile("bar.sync 1, 64;");
    p[1] = 2;
    __syncthreads();
}

__device__ __noinline__ int fplain(int x) { return x * 3 + 1; }
