// sm_100+ kernels with mbarriers (cuda::barrier, cuda::pipeline) and fences: nvlink's
// re-finalization drops the dummy loads before their fences but keeps the MEMBAR.ALL.CTA
// before a wider MEMBAR, which it drops in a kernel without mbarriers (plain_fence).
#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cuda/pipeline>
namespace cg = cooperative_groups;

__global__ void barrier_fence(int *out, int *done) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  out[threadIdx.x] = threadIdx.x;
  bar.arrive_and_wait();
  __threadfence();
  if (threadIdx.x == 0) atomicAdd(done, 1);
}

__global__ void plain_fence(int *out, int *done) {
  out[threadIdx.x] = threadIdx.x;
  __threadfence();
  if (threadIdx.x == 0) atomicAdd(done, 1);
}

__global__ void barrier_fences(int *out, int n, int *flags) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  for (int i = 0; i < n; ++i) {
    out[i * blockDim.x + threadIdx.x] += i;
    __threadfence_system();
    bar.arrive_and_wait();
    __threadfence_block();
    if (threadIdx.x == 0) flags[i] = 1;
  }
}

__global__ void staged(const float4 *in, float4 *out, int tiles, int *done) {
  __shared__ __align__(16) float4 smem[2][128];
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> state;
  auto block = cg::this_thread_block();
  auto pipe = cuda::make_pipeline(block, &state);
  int base = blockIdx.x * tiles;
  for (int t = 0; t < tiles; ++t) {
    pipe.producer_acquire();
    cuda::memcpy_async(block, smem[t & 1], in + (base + t) * 128,
                       cuda::aligned_size_t<16>(sizeof(float4) * 128), pipe);
    pipe.producer_commit();
    pipe.consumer_wait();
    out[(base + t) * 128 + threadIdx.x] = smem[t & 1][threadIdx.x];
    pipe.consumer_release();
  }
  __threadfence();
  if (threadIdx.x == 0) atomicAdd(done, 1);
}

// A fence fused into an atomic, in a kernel with an mbarrier: the loads go, the CTA
// barrier stays.
__global__ void counted_barrier(int *cnt, int *out) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  cuda::atomic_ref<int, cuda::thread_scope_device> c(*cnt);
  out[threadIdx.x] = c.fetch_add(1, cuda::memory_order_acq_rel);
  bar.arrive_and_wait();
}
