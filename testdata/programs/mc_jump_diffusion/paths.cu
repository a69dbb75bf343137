#include "jump.cuh"

__device__ double dPayoffSum[2];

__global__ void asianJumpPaths(curandStateMRG32k3a *states, int pathsPerThread) {
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  curandStateMRG32k3a local = states[id];
  const MarketParams m = dMarket;
  double dt = m.maturity / m.steps;
  double drift = (m.rate - 0.5 * m.sigma * m.sigma - m.jumpRate * (exp(m.jumpMean + 0.5 * m.jumpVol * m.jumpVol) - 1.0)) * dt;
  double vol = m.sigma * sqrt(dt);
  double sum = 0.0, sumSq = 0.0;
  for (int p = 0; p < pathsPerThread; ++p) {
    double s = m.s0, avg = 0.0;
    for (int t = 0; t < m.steps; t += 2) {
      double2 z = curand_normal2_double(&local);
      unsigned int jumps = curand_poisson(&local, m.jumpRate * dt);
      double jump = 1.0;
      for (unsigned j = 0; j < jumps; ++j) jump *= curand_log_normal_double(&local, m.jumpMean, m.jumpVol);
      s *= exp(drift + vol * z.x) * jump;
      avg += s;
      s *= exp(drift + vol * z.y);
      avg += s;
    }
    double pay = fmax(avg / m.steps - m.strike, 0.0);
    sum += pay;
    sumSq += pay * pay;
  }
  states[id] = local;
  sum = blockReduceSum(sum);
  sumSq = blockReduceSum(sumSq);
  if (threadIdx.x == 0) {
    atomicAdd(&dPayoffSum[0], sum * discount(m.maturity));
    atomicAdd(&dPayoffSum[1], sumSq);
  }
}
