#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cuda/pipeline>
#include "stage.cuh"

namespace cg = cooperative_groups;
using namespace stage;

// Double-buffered: chunk k+1 is copied while chunk k is reduced.
__global__ void pipelined_dot(const float *x, const float *y, int chunks, float *out,
                              unsigned long long *over) {
  __shared__ alignas(16) float sx[2][kChunk];
  __shared__ alignas(16) float sy[2][kChunk];
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> state;
  auto block = cg::this_thread_block();
  auto pipe = cuda::make_pipeline(block, &state);
  const float *bx = x + blockIdx.x * chunks * kChunk;
  const float *by = y + blockIdx.x * chunks * kChunk;
  for (int s = 0; s < 2 && s < chunks; ++s) {
    pipe.producer_acquire();
    cuda::memcpy_async(block, sx[s], bx + s * kChunk, sizeof(float) * kChunk, pipe);
    cuda::memcpy_async(block, sy[s], by + s * kChunk, sizeof(float) * kChunk, pipe);
    pipe.producer_commit();
  }
  float acc = 0.f;
  for (int c = 0; c < chunks; ++c) {
    int s = c & 1;
    pipe.consumer_wait();
    acc += dot_span({sx[s], kChunk}, {sy[s], kChunk});
    count_over({sx[s], kChunk}, 0.5f, over);
    block.sync();
    pipe.consumer_release();
    if (c + 2 < chunks) {
      pipe.producer_acquire();
      cuda::memcpy_async(block, sx[s], bx + (c + 2) * kChunk, sizeof(float) * kChunk, pipe);
      cuda::memcpy_async(block, sy[s], by + (c + 2) * kChunk, sizeof(float) * kChunk, pipe);
      pipe.producer_commit();
    }
  }
  cuda::atomic_ref<float, cuda::thread_scope_device>(*out).fetch_add(acc);
}

// One chunk per block through a block-scoped barrier.
__global__ void barrier_scale(float *x, float factor) {
  __shared__ alignas(16) float tile[kChunk];
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0) init(&bar, block.size());
  block.sync();
  cuda::memcpy_async(block, tile, x + blockIdx.x * kChunk, cuda::aligned_size_t<16>(sizeof tile),
                     bar);
  bar.arrive_and_wait();
  for (int i = threadIdx.x; i < kChunk; i += blockDim.x) tile[i] *= factor;
  block.sync();
  for (int i = threadIdx.x; i < kChunk; i += blockDim.x) x[blockIdx.x * kChunk + i] = tile[i];
}
