#include "stencil.cuh"

// Double-buffered 1D stencil with the pipeline primitives.
__global__ void stencilPrimitives(const float *in, float *out, int chunks) {
  __shared__ __align__(16) float buf[2][CHUNK + 2 * RADIUS + 4];
  int first = blockIdx.x * chunks;
  stageChunk(buf[0], in + first * CHUNK, CHUNK + 2 * RADIUS + 4);
  for (int c = 0; c < chunks; ++c) {
    if (c + 1 < chunks) stageChunk(buf[(c + 1) & 1], in + (first + c + 1) * CHUNK, CHUNK + 2 * RADIUS + 4);
    else __pipeline_commit();
    __pipeline_wait_prior(1);
    __syncthreads();
    const float *s = buf[c & 1];
    for (int i = threadIdx.x; i < CHUNK; i += blockDim.x) out[(first + c) * CHUNK + i] = applyStencil(s, i + RADIUS);
    __syncthreads();
  }
}

// 2D tiles through a two-stage cuda::pipeline shared by the block.
template <int TILE, int STAGES>
__global__ void tiledScale(const float4 *in, float4 *out, int tiles, float s) {
  __shared__ __align__(16) float4 smem[STAGES][TILE];
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, STAGES> state;
  auto block = cg::this_thread_block();
  auto pipe = cuda::make_pipeline(block, &state);
  int base = blockIdx.x * tiles;
  for (int f = 0; f < STAGES && f < tiles; ++f) {
    pipe.producer_acquire();
    cuda::memcpy_async(block, smem[f], in + (base + f) * TILE, cuda::aligned_size_t<16>(sizeof(float4) * TILE), pipe);
    pipe.producer_commit();
  }
  for (int t = 0; t < tiles; ++t) {
    pipe.consumer_wait();
    float4 v = smem[t % STAGES][threadIdx.x];
    v.x *= s; v.y *= s; v.z *= s; v.w *= s;
    out[(base + t) * TILE + threadIdx.x] = v;
    block.sync();
    pipe.consumer_release();
    int nt = t + STAGES;
    if (nt < tiles) {
      pipe.producer_acquire();
      cuda::memcpy_async(block, smem[nt % STAGES], in + (base + nt) * TILE, cuda::aligned_size_t<16>(sizeof(float4) * TILE), pipe);
      pipe.producer_commit();
    }
  }
}

template __global__ void tiledScale<128, 2>(const float4 *, float4 *, int, float);
template __global__ void tiledScale<256, 3>(const float4 *, float4 *, int, float);

// Cooperative-groups flavour with dynamic shared memory.
__global__ void cgCopySum(const double *in, double *out, int n) {
  extern __shared__ double dyn[];
  auto block = cg::this_thread_block();
  int off = blockIdx.x * n;
  cg::memcpy_async(block, dyn, in + off, sizeof(double) * n);
  cg::wait(block);
  double acc = 0.0;
  for (int i = threadIdx.x; i < n; i += blockDim.x) acc += dyn[i] * dyn[(i + 1) % n];
  atomicAdd(out, acc);
}
