#pragma once
#include <cublasdx.hpp>

using TileGemm = decltype(cublasdx::Size<32, 32, 32>() + cublasdx::Precision<float>() +
                          cublasdx::Type<cublasdx::type::real>() +
                          cublasdx::Function<cublasdx::function::MM>() +
                          cublasdx::Arrangement<cublasdx::row_major, cublasdx::col_major>() +
                          cublasdx::Block() + cublasdx::BlockDim<128>() + cublasdx::SM<900>());

// epilogue.cu
__device__ float bias_relu(float acc, float bias);
__device__ void apply_epilogue(float *c, const float *bias, int rows, int cols);

__global__ void tileGemmKernel(const float *a, const float *b, float *c, const float *bias,
                               float alpha, float beta);
unsigned tileGemmSmemBytes();
