#include <cmath>
#include <cstdio>
#include <vector>
#include "mc.cuh"

int main() {
  const int blocks = 128, threads = 256, paths = 1024;
  OptionSpec opt{100.f, 105.f, 0.03f, 0.2f, 1.f};
  curandState *states;
  float *sums;
  cudaMalloc(&states, blocks * threads * sizeof(curandState));
  cudaMalloc(&sums, blocks * sizeof(float));
  std::vector<float> h(blocks);
  mc::setup_states<<<blocks, threads>>>(states, 1234ull);
  mc::price_xorwow<<<blocks, threads>>>(states, opt, paths, sums);
  cudaMemcpy(h.data(), sums, blocks * sizeof(float), cudaMemcpyDeviceToHost);
  double a = 0;
  for (float x : h) a += x;
  mc::price_philox<<<blocks, threads>>>(opt, paths, 99ull, sums);
  cudaMemcpy(h.data(), sums, blocks * sizeof(float), cudaMemcpyDeviceToHost);
  double b = 0;
  for (float x : h) b += x;
  double scale = std::exp(-opt.rate * opt.years) / (double(blocks) * threads * paths);
  printf("xorwow %f philox %f\n", a * scale, b * scale);
  return 0;
}
