#include "jump.cuh"

__device__ MarketParams dMarket;

__global__ void setupMrg(curandStateMRG32k3a *states, unsigned long long seed, int n) {
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  if (id >= n) return;
  curand_init(seed, id, 0, &states[id]);
}

__global__ void setupMrgSkip(curandStateMRG32k3a *states, unsigned long long seed, int n, unsigned long long skip) {
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  if (id >= n) return;
  curandStateMRG32k3a s;
  curand_init(seed, 0, 0, &s);
  skipahead_sequence(id, &s);
  skipahead(skip, &s);
  states[id] = s;
}

__device__ double discount(double t) { return exp(-dMarket.rate * t); }
