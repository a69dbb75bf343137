// Declarations shared by the cuRAND quasi-/pseudo-random program.
#pragma once
#include <curand_kernel.h>

constexpr int kDims = 4;

// reduce.cu
extern __device__ double g_estimates[8];
__device__ float block_reduce_sum(float v);
__device__ void publish(int slot, float block_sum, double scale);

// sobol.cu
__global__ void initSobol(curandStateScrambledSobol32 *states,
                          curandDirectionVectors32_t *dirs, unsigned *scramble, int n);
__global__ void sobolIntegrate(curandStateScrambledSobol32 *states, int n, int points);
// mrg.cu
__global__ void initMrg(curandStateMRG32k3a *states, unsigned long long seed);
__global__ void lognormalMoments(curandStateMRG32k3a *states, int draws, float mu, float sigma);
// philox.cu
__global__ void philoxPoissonAndNormals(unsigned long long seed, int draws, double lambda);
