__device__ void load_tile(float *dst_smem, const float *src, unsigned bytes,
                          unsigned long long *bar);

__global__ void k_tiles(float *out, const float *in) {
  __shared__ __align__(128) float tile[256];
  __shared__ unsigned long long bar;
  load_tile(tile, in + blockIdx.x * 256, 1024, &bar);
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = tile[threadIdx.x];
}
