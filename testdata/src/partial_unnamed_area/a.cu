// A partial link of kernels that use extern __shared__ arrays beside one that uses no shared
// memory: nvlink's -r gives that kernel a 16-byte .nv.shared area no symbol names, which its
// final link keeps (0x10 past the reserved area). (From a block scan: scripts/programs'
// shfl_scan_dyn.)
extern __device__ int warp_total(int v);

__global__ void k_scan(const int *in, int *out)
{
    extern __shared__ int tile[];
    tile[threadIdx.x] = warp_total(in[threadIdx.x]);
    __syncthreads();
    out[threadIdx.x] = tile[blockDim.x - 1 - threadIdx.x];
}

__global__ void k_add(int *out, const int *sums)
{
    if (blockIdx.x > 0) out[blockIdx.x * blockDim.x + threadIdx.x] += sums[blockIdx.x - 1];
}
