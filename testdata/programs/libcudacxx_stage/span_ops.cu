#include "stage.cuh"

namespace stage {
__device__ float dot_span(cuda::std::span<const float> a, cuda::std::span<const float> b) {
  float acc = 0.f;
  for (cuda::std::size_t i = threadIdx.x; i < a.size(); i += blockDim.x) acc += a[i] * b[i];
  return acc;
}

__device__ void count_over(cuda::std::span<const float> v, float threshold,
                           unsigned long long *counter) {
  cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> ref(*counter);
  unsigned long long local = 0;
  for (cuda::std::size_t i = threadIdx.x; i < v.size(); i += blockDim.x)
    local += v[i] > threshold;
  ref.fetch_add(local, cuda::std::memory_order_relaxed);
}
}  // namespace stage
