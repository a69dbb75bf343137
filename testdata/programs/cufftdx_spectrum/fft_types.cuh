#pragma once
#include <cufftdx.hpp>

using FftBase = decltype(cufftdx::Size<256>() + cufftdx::Precision<float>() +
                         cufftdx::Type<cufftdx::fft_type::c2c>() +
                         cufftdx::ElementsPerThread<8>() + cufftdx::FFTsPerBlock<2>() +
                         cufftdx::SM<900>() + cufftdx::Block());
using FftFwd = decltype(FftBase() + cufftdx::Direction<cufftdx::fft_direction::forward>());
using FftInv = decltype(FftBase() + cufftdx::Direction<cufftdx::fft_direction::inverse>());
using cplx = typename FftFwd::value_type;

// io.cu: strided register <-> global moves shared by both directions.
template <class FFT>
__device__ void load_signal(const cplx *in, cplx (&reg)[FFT::storage_size]);
template <class FFT>
__device__ void store_signal(cplx *out, const cplx (&reg)[FFT::storage_size], float scale);
__device__ float lowpass_gain(unsigned bin, unsigned size);

__global__ void forward_and_filter(const cplx *in, cplx *spec);
__global__ void inverse_fft(const cplx *spec, cplx *out);
