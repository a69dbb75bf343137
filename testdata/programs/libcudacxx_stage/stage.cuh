#pragma once
#include <cuda/std/span>
#include <cuda/atomic>

namespace stage {
constexpr int kBlock = 256;
constexpr int kChunk = 1024;

// span_ops.cu
__device__ float dot_span(cuda::std::span<const float> a, cuda::std::span<const float> b);
__device__ void count_over(cuda::std::span<const float> v, float threshold,
                           unsigned long long *counter);
}  // namespace stage
