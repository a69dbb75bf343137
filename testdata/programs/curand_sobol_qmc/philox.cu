// Philox4_32_10 without stored states: four uniforms and four normals per call, Poisson
// counts at a large rate, and the host driver for all three generators (compiled, not run).
#include <cstdio>
#include <curand.h>
#include "rng.cuh"

__global__ void philoxPoissonAndNormals(unsigned long long seed, int draws, double lambda) {
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  curandStatePhilox4_32_10_t s;
  curand_init(seed, tid, 0, &s);
  float u_sum = 0.f, z_sq = 0.f, pois = 0.f;
  for (int i = 0; i < draws; i += 4) {
    float4 u = curand_uniform4(&s);
    float4 z = curand_normal4(&s);
    u_sum += u.x + u.y + u.z + u.w;
    z_sq += z.x * z.x + z.y * z.y + z.z * z.z + z.w * z.w;
    pois += float(curand_poisson(&s, lambda));
  }
  const double per = 1.0 / (double(gridDim.x) * blockDim.x * draws);
  publish(4, block_reduce_sum(u_sum), per);
  publish(5, block_reduce_sum(z_sq), per);
  publish(6, block_reduce_sum(pois), 4.0 * per);
}

int main() {
  const int blocks = 64, threads = 128, n = blocks * threads;
  curandDirectionVectors32_t *hostDirs;
  unsigned *hostScramble;
  curandGetDirectionVectors32(&hostDirs, CURAND_SCRAMBLED_DIRECTION_VECTORS_32_JOEKUO6);
  curandGetScrambleConstants32(&hostScramble);
  curandDirectionVectors32_t *dirs;
  unsigned *scramble;
  cudaMalloc(&dirs, kDims * sizeof(curandDirectionVectors32_t));
  cudaMalloc(&scramble, kDims * sizeof(unsigned));
  cudaMemcpy(dirs, hostDirs, kDims * sizeof(curandDirectionVectors32_t), cudaMemcpyHostToDevice);
  cudaMemcpy(scramble, hostScramble, kDims * sizeof(unsigned), cudaMemcpyHostToDevice);
  curandStateScrambledSobol32 *sobol;
  curandStateMRG32k3a *mrg;
  cudaMalloc(&sobol, kDims * n * sizeof(*sobol));
  cudaMalloc(&mrg, n * sizeof(*mrg));
  initSobol<<<blocks, threads>>>(sobol, dirs, scramble, n);
  sobolIntegrate<<<blocks, threads>>>(sobol, n, 64);
  initMrg<<<blocks, threads>>>(mrg, 42ull);
  lognormalMoments<<<blocks, threads>>>(mrg, 64, 0.f, 0.25f);
  philoxPoissonAndNormals<<<blocks, threads>>>(7ull, 64, 200.0);
  double est[8];
  cudaMemcpyFromSymbol(est, g_estimates, sizeof est);
  printf("prod %f (1/16) gauss %f lognormal %f %f uniform %f normal %f poisson %f\n", est[0],
         est[1], est[2], est[3], est[4], est[5], est[6]);
  return 0;
}
