#include "mc.cuh"

namespace mc {
__global__ void setup_states(curandState *states, unsigned long long seed) {
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  curand_init(seed, id, 0, &states[id]);
}

__global__ void price_xorwow(curandState *states, OptionSpec opt, int paths, float *blockSums) {
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  curandState local = states[id];
  float acc = 0.f;
  for (int p = 0; p < paths; p += 2) {
    float u1 = curand_uniform(&local), u2 = curand_uniform(&local);
    float r = sqrtf(-2.f * logf(u1));
    acc += payoff(opt, r * cospif(2.f * u2)) + payoff(opt, r * sinpif(2.f * u2));
  }
  states[id] = local;
  float s = block_sum(acc);
  if (threadIdx.x == 0) blockSums[blockIdx.x] = s;
}
}  // namespace mc
