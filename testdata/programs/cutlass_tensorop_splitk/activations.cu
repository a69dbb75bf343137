// The activation the tensor-op epilogue calls, and a column reduction of the result written
// with CUTLASS's thread-level pieces: 4-wide cutlass::Array loads, ReduceAdd accumulation,
// NumericArrayConverter to half for a rounded copy, totals in a __device__ array.
#include <cutlass/array.h>
#include <cutlass/numeric_conversion.h>
#include <cutlass/reduction/thread/reduction_operators.h>
#include "ops.h"

__device__ float g_column_sums[1024];
__device__ unsigned g_reduced_columns;

__device__ float gelu_tanh(float x) {
  const float k0 = 0.7978845608f, k1 = 0.044715f;
  return 0.5f * x * (1.f + tanhf(k0 * (x + k1 * x * x * x)));
}

__global__ void column_reduce_kernel(float const *D, int m, int n, cutlass::half_t *rounded) {
  using Frag = cutlass::Array<float, 4>;
  cutlass::reduction::thread::ReduceAdd<float, float, 4> add;
  cutlass::NumericArrayConverter<cutlass::half_t, float, 4> to_half;
  const int col4 = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
  if (col4 + 3 >= n) return;
  Frag acc;
  acc.fill(0.f);
  for (int r = 0; r < m; ++r) {
    Frag row = *reinterpret_cast<Frag const *>(D + (size_t)r * n + col4);
    acc = add(acc, row);
  }
  cutlass::Array<cutlass::half_t, 4> h = to_half(acc);
  *reinterpret_cast<cutlass::Array<cutlass::half_t, 4> *>(rounded + col4) = h;
  for (int i = 0; i < 4; ++i) g_column_sums[(col4 + i) % 1024] = acc[i];
  atomicAdd(&g_reduced_columns, 4u);
}

void reduce_columns(float const *D, int m, int n, cudaStream_t stream) {
  cutlass::half_t *rounded;
  cudaMallocAsync(&rounded, n * sizeof(cutlass::half_t), stream);
  column_reduce_kernel<<<(n / 4 + 127) / 128, 128, 0, stream>>>(D, m, n, rounded);
  cudaFreeAsync(rounded, stream);
}
