// Fences beside an mbarrier's bulk copy, a call (no re-finalization), a warp sync.
#include <cuda/barrier>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__device__ __noinline__ int helper(int v) { return v * 3 + 1; }

__global__ void bulk_copy_fence(const int4 *in, int4 *out, int *flag) {
  __shared__ alignas(128) int4 buf[256];
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0) init(&bar, block.size());
  block.sync();
  cuda::memcpy_async(block, buf, in + blockIdx.x * 256, cuda::aligned_size_t<128>(sizeof(buf)), bar);
  bar.arrive_and_wait();
  out[blockIdx.x * 256 + threadIdx.x] = buf[threadIdx.x];
  __threadfence();
  if (threadIdx.x == 0) atomicAdd(flag, 1);
}

__global__ void calling_fence(int *out, int *flag) {
  out[threadIdx.x] = helper(threadIdx.x);
  __threadfence();
  if (threadIdx.x == 0) atomicAdd(flag, 1);
}

__global__ void warp_fence(int *out, int *flag) {
  out[threadIdx.x] = threadIdx.x;
  __syncwarp();
  __threadfence_block();
  out[threadIdx.x ^ 1] += 1;
  __threadfence();
  if (threadIdx.x == 0) atomicAdd(flag, 1);
}
