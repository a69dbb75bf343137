// A function no kernel calls, with a static __shared__ object (kept by -preserve-relocs).
__device__ __noinline__ int uncalled(int x)
{
    __shared__ __align__(32) double tile[16];
    tile[threadIdx.x % 16] = (double)x;
    __syncthreads();
    return x + (int)tile[(threadIdx.x + 1) % 16];
}
