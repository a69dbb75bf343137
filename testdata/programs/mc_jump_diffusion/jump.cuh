#pragma once
#include <curand_kernel.h>

struct MarketParams {
  double s0, strike, rate, sigma, maturity;
  double jumpRate, jumpMean, jumpVol;
  int steps;
};

extern __device__ MarketParams dMarket;
extern __device__ double dPayoffSum[2];

__device__ double blockReduceSum(double v);
__device__ double discount(double t);
