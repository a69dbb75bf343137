#include <cstdio>
#include "jump.cuh"

__device__ double blockReduceSum(double v) {
  __shared__ double warpSums[32];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  if (lane == 0) warpSums[w] = v;
  __syncthreads();
  v = threadIdx.x < (blockDim.x + 31) / 32 ? warpSums[lane] : 0.0;
  if (w == 0)
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  __syncthreads();
  return v;
}

// Antithetic European control variate with Philox4x32-10 (no stored state).
__global__ void controlVariate(unsigned long long seed, int n, double *out) {
  curandStatePhilox4_32_10_t st;
  curand_init(seed, blockIdx.x * blockDim.x + threadIdx.x, 0, &st);
  double acc = 0.0;
  for (int i = 0; i < n; i += 4) {
    float4 z = curand_normal4(&st);
    double e = exp(dMarket.sigma * z.x) + exp(-dMarket.sigma * z.x) + exp(dMarket.sigma * z.y) + exp(-dMarket.sigma * z.y);
    acc += 0.25 * e + curand_uniform_double(&st) * 1e-12;
  }
  acc = blockReduceSum(acc);
  if (threadIdx.x == 0) out[blockIdx.x] = acc * discount(dMarket.maturity);
}

__global__ void setupMrg(curandStateMRG32k3a *, unsigned long long, int);
__global__ void setupMrgSkip(curandStateMRG32k3a *, unsigned long long, int, unsigned long long);
__global__ void asianJumpPaths(curandStateMRG32k3a *, int);

int main() {
  const int threads = 256, blocks = 64, n = threads * blocks;
  curandStateMRG32k3a *states;
  double *cv;
  cudaMalloc(&states, n * sizeof(*states));
  cudaMalloc(&cv, blocks * sizeof(double));
  MarketParams m{100.0, 100.0, 0.05, 0.2, 1.0, 0.5, -0.1, 0.15, 252};
  cudaMemcpyToSymbol(dMarket, &m, sizeof(m));
  setupMrg<<<blocks, threads>>>(states, 1234ULL, n);
  asianJumpPaths<<<blocks, threads>>>(states, 8);
  setupMrgSkip<<<blocks, threads>>>(states, 99ULL, n, 1ULL << 20);
  asianJumpPaths<<<blocks, threads>>>(states, 8);
  controlVariate<<<blocks, threads>>>(7ULL, 1024, cv);
  double sums[2];
  cudaMemcpyFromSymbol(sums, dPayoffSum, sizeof(sums));
  printf("%f %f\n", sums[0] / (16.0 * n), sums[1]);
  return 0;
}
