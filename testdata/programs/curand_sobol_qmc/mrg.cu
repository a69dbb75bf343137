// MRG32k3a: one subsequence per thread (curand_init + skipahead_sequence), log-normal draws
// in float and double, first and second moments published.
#include "rng.cuh"

__global__ void initMrg(curandStateMRG32k3a *states, unsigned long long seed) {
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  curand_init(seed, 0, 0, &states[tid]);
  skipahead_sequence((unsigned long long)tid, &states[tid]);
}

__global__ void lognormalMoments(curandStateMRG32k3a *states, int draws, float mu, float sigma) {
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  curandStateMRG32k3a s = states[tid];
  float m1 = 0.f, m2 = 0.f;
  for (int i = 0; i < draws; i += 2) {
    float x = curand_log_normal(&s, mu, sigma);
    double2 y = curand_log_normal2_double(&s, mu, sigma);
    m1 += x + float(y.x);
    m2 += x * x + float(y.y * y.y);
  }
  states[tid] = s;
  const double scale = 1.0 / (double(gridDim.x) * blockDim.x * draws * 1.5);
  publish(2, block_reduce_sum(m1), scale);
  publish(3, block_reduce_sum(m2), scale);
}
