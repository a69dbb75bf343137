#include "mc.cuh"

namespace mc {
__device__ float payoff(const OptionSpec &opt, float z) {
  float drift = (opt.rate - 0.5f * opt.vol * opt.vol) * opt.years;
  float st = opt.spot * expf(drift + opt.vol * sqrtf(opt.years) * z);
  return fmaxf(st - opt.strike, 0.f);
}

__device__ float block_sum(float v) {
  __shared__ float warpSums[32];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
  if ((threadIdx.x & 31) == 0) warpSums[threadIdx.x >> 5] = v;
  __syncthreads();
  v = threadIdx.x < (blockDim.x >> 5) ? warpSums[threadIdx.x] : 0.f;
  if (threadIdx.x < 32)
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
  return v;
}

__global__ void price_philox(OptionSpec opt, int paths, unsigned long long seed, float *blockSums) {
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  curandStatePhilox4_32_10_t st;
  curand_init(seed, id, 0, &st);
  float acc = 0.f;
  for (int p = 0; p < paths; p += 4) {
    float4 z = curand_normal4(&st);
    acc += payoff(opt, z.x) + payoff(opt, z.y) + payoff(opt, z.z) + payoff(opt, z.w);
  }
  float s = block_sum(acc);
  if (threadIdx.x == 0) blockSums[blockIdx.x] = s;
}
}  // namespace mc
