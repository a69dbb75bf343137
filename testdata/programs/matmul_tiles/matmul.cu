// C = A * B with square tiles staged through shared memory; the host picks the tile size.
template <int TILE>
__global__ void matmul_tiled(float *c, const float *a, const float *b, int n) {
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float acc = 0.0f;
  for (int t = 0; t < n / TILE; ++t) {
    __shared__ float tile_a[TILE][TILE];
    __shared__ float tile_b[TILE][TILE];
    tile_a[ty][tx] = a[row * n + t * TILE + tx];
    tile_b[ty][tx] = b[(t * TILE + ty) * n + col];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; ++k) acc += tile_a[ty][k] * tile_b[k][tx];
    __syncthreads();
  }
  c[row * n + col] = acc;
}

void matmul(float *c, const float *a, const float *b, int n, bool big_tiles) {
  if (big_tiles) {
    dim3 threads(32, 32), grid(n / 32, n / 32);
    matmul_tiled<32><<<grid, threads>>>(c, a, b, n);
  } else {
    dim3 threads(16, 16), grid(n / 16, n / 16);
    matmul_tiled<16><<<grid, threads>>>(c, a, b, n);
  }
}
