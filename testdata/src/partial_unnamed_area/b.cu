__device__ int warp_total(int v)
{
    extern __shared__ int totals[];
    totals[threadIdx.x / 32] = v;
    __syncwarp();
    return totals[0] + v;
}
