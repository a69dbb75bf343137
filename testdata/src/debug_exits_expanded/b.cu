// More expanded code under -g: a block-scope cuda::pipeline (SYNCS exchanges behind a fence
// the finalizer adds, dummy loads before the shared-memory atomic of the pipeline's
// release) and a cluster's distributed shared memory.
#include <cooperative_groups.h>
#include <cuda/pipeline>
namespace cg = cooperative_groups;

template <int TILE, int STAGES>
__global__ void tiled_scale(const float4 *in, float4 *out, int tiles, float s) {
  __shared__ __align__(16) float4 smem[STAGES][TILE];
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, STAGES> state;
  auto block = cg::this_thread_block();
  auto pipe = cuda::make_pipeline(block, &state);
  int base = blockIdx.x * tiles;
  for (int f = 0; f < STAGES && f < tiles; ++f) {
    pipe.producer_acquire();
    cuda::memcpy_async(block, smem[f], in + (base + f) * TILE,
                       cuda::aligned_size_t<16>(sizeof(float4) * TILE), pipe);
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
      cuda::memcpy_async(block, smem[nt % STAGES], in + (base + nt) * TILE,
                         cuda::aligned_size_t<16>(sizeof(float4) * TILE), pipe);
      pipe.producer_commit();
    }
  }
}

template __global__ void tiled_scale<256, 3>(const float4 *, float4 *, int, float);

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
__global__ void __cluster_dims__(2, 1, 1) pair_exchange(float *out) {
  __shared__ float mine[128];
  cg::cluster_group cluster = cg::this_cluster();
  mine[threadIdx.x] = blockIdx.x * 1000.f + threadIdx.x;
  cluster.sync();
  float *peer = cluster.map_shared_rank(mine, cluster.block_rank() ^ 1);
  out[blockIdx.x * blockDim.x + threadIdx.x] = peer[threadIdx.x];
  cluster.sync();
}
#endif
