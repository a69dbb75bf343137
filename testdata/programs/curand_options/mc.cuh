#pragma once
#include <curand_kernel.h>

struct OptionSpec {
  float spot, strike, rate, vol, years;
};

namespace mc {
__global__ void setup_states(curandState *states, unsigned long long seed);
__global__ void price_xorwow(curandState *states, OptionSpec opt, int paths, float *blockSums);
__global__ void price_philox(OptionSpec opt, int paths, unsigned long long seed, float *blockSums);
__device__ float payoff(const OptionSpec &opt, float z);
__device__ float block_sum(float v);
}  // namespace mc
