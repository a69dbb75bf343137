// Quasi-Monte Carlo: one scrambled Sobol32 state per (thread, dimension), initialised from
// the host's direction vectors and scramble constants, integrating prod(x_d) and a
// Gaussian moment over the unit hypercube.
#include "rng.cuh"

__global__ void initSobol(curandStateScrambledSobol32 *states,
                          curandDirectionVectors32_t *dirs, unsigned *scramble, int n) {
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= n) return;
  for (int d = 0; d < kDims; ++d)
    curand_init(dirs[d], scramble[d], tid, &states[d * n + tid]);
}

__global__ void sobolIntegrate(curandStateScrambledSobol32 *states, int n, int points) {
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  float prod_sum = 0.f, gauss_sum = 0.f;
  if (tid < n) {
    curandStateScrambledSobol32 local[kDims];
    for (int d = 0; d < kDims; ++d) local[d] = states[d * n + tid];
    for (int p = 0; p < points; ++p) {
      float prod = 1.f;
      for (int d = 0; d < kDims; ++d) {
        prod *= curand_uniform(&local[d]);
        // The same states also feed a normal draw: skip ahead n points between draws.
        skipahead(n - 1, &local[d]);
      }
      prod_sum += prod;
      float z = curand_normal(&local[0]);
      gauss_sum += z * z;
    }
    for (int d = 0; d < kDims; ++d) states[d * n + tid] = local[d];
  }
  float s = block_reduce_sum(prod_sum);
  publish(0, s, 1.0 / (double(n) * points));
  s = block_reduce_sum(gauss_sum);
  publish(1, s, 1.0 / (double(n) * points));
}
