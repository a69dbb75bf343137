#include <cute/tensor.hpp>
#include "api.h"

using namespace cute;

template <class TileShape, class ThreadLayout>
__global__ void cute_transpose_kernel(const float *in, float *out, int rows, int cols,
                                      TileShape tile, ThreadLayout thr) {
  __shared__ float smem[size<0>(TileShape{}) * (size<1>(TileShape{}) + 1)];
  Tensor gIn = make_tensor(make_gmem_ptr(in), make_shape(rows, cols), LayoutRight{});
  Tensor gOut = make_tensor(make_gmem_ptr(out), make_shape(rows, cols), LayoutLeft{});
  Tensor tileIn = local_tile(gIn, tile, make_coord(blockIdx.y, blockIdx.x));
  Tensor tileOut = local_tile(gOut, tile, make_coord(blockIdx.y, blockIdx.x));
  auto sLayout = make_layout(tile, make_stride(Int<1>{}, Int<size<0>(TileShape{}) + 1>{}));
  Tensor sTile = make_tensor(make_smem_ptr(smem), sLayout);
  Tensor tIn = local_partition(tileIn, thr, threadIdx.x);
  Tensor tS = local_partition(sTile, thr, threadIdx.x);
  copy(tIn, tS);
  __syncthreads();
  Tensor tOut = local_partition(tileOut, thr, threadIdx.x);
  copy(tS, tOut);
}

void TransposeCute(const float *in, float *out, int rows, int cols) {
  auto tile = make_shape(Int<32>{}, Int<32>{});
  auto thr = make_layout(make_shape(Int<8>{}, Int<32>{}), LayoutRight{});
  dim3 grid(cols / 32, rows / 32);
  cute_transpose_kernel<<<grid, int(size(thr))>>>(in, out, rows, cols, tile, thr);
}
