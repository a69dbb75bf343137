#include <cmath>
#include <cstdio>
#include <vector>
#include "body.h"

int main() {
  const int n = 4096, steps = 10;
  std::vector<Body> h(n);
  for (int i = 0; i < n; ++i) {
    double t = i * 0.001;
    h[i].pos = make_double4(cos(t) * i, sin(t) * i, 0.01 * i, 1.0);
    h[i].vel = make_double4(0, 0, 0, 0);
  }
  double eps2 = 1e-4, dt = 1e-3;
  cudaMemcpyToSymbol(c_softening2, &eps2, sizeof eps2);
  cudaMemcpyToSymbol(c_dt, &dt, sizeof dt);
  Body *d;
  double3 *acc;
  cudaMalloc(&d, n * sizeof(Body));
  cudaMalloc(&acc, n * sizeof(double3));
  cudaMemcpy(d, h.data(), n * sizeof(Body), cudaMemcpyHostToDevice);
  for (int s = 0; s < steps; ++s) {
    nb_forces<<<n / NB_TILE, NB_TILE>>>(d, acc, n);
    nb_integrate<<<n / 256, 256>>>(d, acc, n);
  }
  cudaMemcpy(h.data(), d, sizeof(Body), cudaMemcpyDeviceToHost);
  printf("%f %f %f\n", h[0].pos.x, h[0].pos.y, h[0].pos.z);
  return 0;
}
