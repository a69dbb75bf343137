// FFT descriptions and cross-file declarations of the cuFFTDx convolution program.
#pragma once
#include <cufftdx.hpp>

// Device code describes the FFTs for the target it is compiled for; the host pass (which
// only needs block dimensions and shared memory sizes) uses the sm_90 description.
#ifdef __CUDA_ARCH__
#define CONV_SM __CUDA_ARCH__
#else
#define CONV_SM 900
#endif

constexpr unsigned kN = 512, kBins = kN / 2 + 1, kTaps = 16;

using R2C = decltype(cufftdx::Size<kN>() + cufftdx::Precision<float>() +
                     cufftdx::Type<cufftdx::fft_type::r2c>() +
                     cufftdx::Direction<cufftdx::fft_direction::forward>() +
                     cufftdx::ElementsPerThread<8>() + cufftdx::FFTsPerBlock<2>() +
                     cufftdx::SM<CONV_SM>() + cufftdx::Block());
using C2R = decltype(cufftdx::Size<kN>() + cufftdx::Precision<float>() +
                     cufftdx::Type<cufftdx::fft_type::c2r>() +
                     cufftdx::Direction<cufftdx::fft_direction::inverse>() +
                     cufftdx::ElementsPerThread<8>() + cufftdx::FFTsPerBlock<2>() +
                     cufftdx::SM<CONV_SM>() + cufftdx::Block());
using TapsFFT = decltype(cufftdx::Size<kTaps>() + cufftdx::Precision<float>() +
                         cufftdx::Type<cufftdx::fft_type::c2c>() +
                         cufftdx::Direction<cufftdx::fft_direction::forward>() +
                         cufftdx::Thread());
using cplx = cufftdx::complex<float>;

// filter.cu
extern __device__ cplx g_filter[kBins];
__device__ cplx filter_at(unsigned bin);
__global__ void buildFilter(const float *taps);
// forward.cu / inverse.cu
__global__ void forwardFiltered(const float *signal, cplx *spectrum);
__global__ void inverseReal(const cplx *spectrum, float *signal);
