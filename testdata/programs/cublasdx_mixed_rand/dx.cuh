// MathDx descriptions and cross-file declarations.
#pragma once
#include <cublasdx.hpp>
#include <curanddx.hpp>
#include <cuda_fp16.h>

// Device code describes the operations for the target being compiled; the host pass only
// needs block dimensions and shared memory sizes and uses the sm_90 descriptions.
#ifdef __CUDA_ARCH__
#define DX_SM __CUDA_ARCH__
#else
#define DX_SM 900
#endif

using HGemm = decltype(cublasdx::Size<64, 64, 32>() + cublasdx::Precision<__half, __half, float>() +
                       cublasdx::Type<cublasdx::type::real>() +
                       cublasdx::Function<cublasdx::function::MM>() +
                       cublasdx::Arrangement<cublasdx::row_major, cublasdx::col_major, cublasdx::row_major>() +
                       cublasdx::Block() + cublasdx::BlockDim<128>() + cublasdx::SM<DX_SM>());
using DGemm = decltype(cublasdx::Size<32, 32, 16>() + cublasdx::Precision<double>() +
                       cublasdx::Type<cublasdx::type::real>() +
                       cublasdx::Function<cublasdx::function::MM>() +
                       cublasdx::Block() + cublasdx::BlockDim<64>() + cublasdx::SM<DX_SM>());
using PhiloxRNG = decltype(curanddx::Generator<curanddx::philox4_32>() +
                           curanddx::PhiloxRounds<10>() + curanddx::SM<DX_SM>() +
                           curanddx::Thread());
using XorwowRNG = decltype(curanddx::Generator<curanddx::xorwow>() + curanddx::SM<DX_SM>() +
                           curanddx::Thread());

struct Epilogue {
  float scale, shift, leak;
};

// epilogue.cu
extern __constant__ Epilogue g_epilogue;
__device__ float leaky(float x);
__device__ void epilogue_tile(float *c, int elems);
void set_epilogue(Epilogue e);
// rand.cu
__global__ void fillHalfUniform(__half *out, int n, unsigned long long seed);
__global__ void fillDoubleNormal(double *out, int n, unsigned long long seed);
// hgemm.cu / dgemm.cu
__global__ void hgemmKernel(const __half *a, const __half *b, float *c);
__global__ void dgemmKernel(const double *a, const double *b, double *c, double alpha);
unsigned hgemmSmem();
unsigned dgemmSmem();
