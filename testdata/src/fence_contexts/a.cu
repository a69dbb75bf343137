// Fences in the contexts sm_100+ kernels put them in (clusters, named barriers, local memory,
// shuffles, sleeps, libcu++ orders and thread fences): nvlink's re-finalization drops their
// preambles by the same rules (the CTA barrier stays in kernels with mbarriers).
#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cuda/atomic>
namespace cg = cooperative_groups;

__global__ void __cluster_dims__(2, 1, 1) cluster_fence(int *out, int *flag) {
  __shared__ int s[64];
  cg::cluster_group cl = cg::this_cluster();
  s[threadIdx.x] = threadIdx.x;
  cl.sync();
  int *peer = cl.map_shared_rank(s, cl.block_rank() ^ 1);
  out[blockIdx.x * 64 + threadIdx.x] = peer[threadIdx.x];
  __threadfence();
  if (threadIdx.x == 0) atomicExch(flag, 1);
  cl.sync();
}

__global__ void named_bar_fence(int *out, int *flag) {
  out[threadIdx.x] = threadIdx.x;
  asm volatile("bar.sync 1, 64;");
  __threadfence();
  if (threadIdx.x == 0) atomicAdd(flag, 1);
}

__global__ void local_mem_fence(int *out, int n, int *flag) {
  int tmp[32];
  for (int i = 0; i < 32; ++i) tmp[i] = out[(i * n) & 255];
  __threadfence();
  out[threadIdx.x] = tmp[n & 31];
  if (threadIdx.x == 0) atomicAdd(flag, 1);
}

__global__ void shuffle_fence(int *out, int *flag) {
  int v = out[threadIdx.x];
  for (int o = 16; o; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
  __threadfence_system();
  if ((threadIdx.x & 31) == 0) atomicAdd_system(flag, v);
}

__global__ void sleep_fence(volatile int *flag, int *out) {
  while (*flag == 0) __nanosleep(100);
  __threadfence();
  out[threadIdx.x] = *flag;
}

__global__ void release_store(int *data, int *flag) {
  data[threadIdx.x] = 1;
  cuda::atomic_ref<int, cuda::thread_scope_device> f(*flag);
  if (threadIdx.x == 0) f.store(1, cuda::memory_order_release);
}

__global__ void acquire_load(int *data, int *flag, int *out) {
  cuda::atomic_ref<int, cuda::thread_scope_device> f(*flag);
  while (f.load(cuda::memory_order_acquire) == 0) {}
  out[threadIdx.x] = data[threadIdx.x];
}

__global__ void fence_seq(int *a) {
  a[threadIdx.x] = 1;
  cuda::atomic_thread_fence(cuda::memory_order_seq_cst, cuda::thread_scope_device);
  a[threadIdx.x + 64] = 2;
  cuda::atomic_thread_fence(cuda::memory_order_acq_rel, cuda::thread_scope_block);
  a[threadIdx.x + 128] = 3;
  cuda::atomic_thread_fence(cuda::memory_order_seq_cst, cuda::thread_scope_system);
}
