// A device function's 128-aligned static __shared__ object: the merged .nv_debug.shared is
// 128-aligned, which sets how much -r adds to the kernels' .nv.shared sections (see b.cu).
__device__ __noinline__ int f_pad(int x)
{
    __shared__ __align__(128) int t[2];
    t[threadIdx.x % 2] = x;
    __syncthreads();
    return t[(threadIdx.x + 1) % 2];
}
