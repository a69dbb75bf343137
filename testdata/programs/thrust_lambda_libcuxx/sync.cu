// libcu++ in kernels: a block barrier paired with memcpy_async to stage a tile in shared
// memory, atomic_ref histogram updates in shared and global memory, atomic_ref claiming of
// output slots, and a cuda::std::array polynomial table.
#include <cuda/atomic>
#include <cuda/barrier>
#include <cuda/std/algorithm>
#include <cooperative_groups.h>
#include "shared.cuh"

// The block barrier lives in shared memory and is initialised by init() below.
#pragma nv_diag_suppress static_var_with_dynamic_init

__device__ cuda::std::array<float, 8> g_poly = {1.f, -0.5f, 0.25f, -0.125f, 0.0625f, 0.f, 0.f, 0.f};
__device__ int g_overflow;

__device__ float poly_eval(float x) {
  float acc = 0.f;
  for (int i = int(g_poly.size()) - 1; i >= 0; --i) acc = acc * x + g_poly[i];
  return acc;
}

__device__ int bucket_of(float x, int buckets) {
  return cuda::std::clamp(int(x * buckets), 0, buckets - 1);
}

constexpr int kTile = 1024;

__global__ void stagedHistogram(const float *in, int n, int *hist, int buckets) {
  using block_barrier = cuda::barrier<cuda::thread_scope_block>;
  __shared__ float tile[kTile];
  __shared__ int local[64];
  __shared__ block_barrier bar;
  auto block = cooperative_groups::this_thread_block();
  if (block.thread_rank() == 0) init(&bar, block.size());
  for (int b = threadIdx.x; b < 64; b += blockDim.x) local[b] = 0;
  block.sync();
  for (int base = blockIdx.x * kTile; base < n; base += gridDim.x * kTile) {
    const int count = min(kTile, n - base);
    cuda::memcpy_async(block, tile, in + base, sizeof(float) * count, bar);
    bar.arrive_and_wait();
    cuda::std::span<const float> view(tile, count);
    for (int i = threadIdx.x; i < (int)view.size(); i += blockDim.x) {
      int bkt = bucket_of(poly_eval(view[i]), buckets);
      if (bkt < 64) {
        cuda::atomic_ref<int, cuda::thread_scope_block> r(local[bkt]);
        r.fetch_add(1, cuda::memory_order_relaxed);
      } else {
        cuda::atomic_ref<int, cuda::thread_scope_device> o(g_overflow);
        o.fetch_add(1, cuda::memory_order_relaxed);
      }
    }
    bar.arrive_and_wait();
  }
  for (int b = threadIdx.x; b < min(buckets, 64); b += blockDim.x) {
    cuda::atomic_ref<int, cuda::thread_scope_device> g(hist[b]);
    g.fetch_add(local[b], cuda::memory_order_relaxed);
  }
}

__global__ void claimSlots(const float *in, int n, float threshold, int *cursor, int *slots) {
  cuda::atomic_ref<int, cuda::thread_scope_device> c(*cursor);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    if (in[i] > threshold) slots[c.fetch_add(1, cuda::memory_order_acq_rel)] = i;
}
