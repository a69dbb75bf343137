#pragma once
#include <cuda_runtime.h>

struct Body {
  double4 pos;  // w = mass
  double4 vel;
};

#define NB_TILE 128

extern __constant__ double c_softening2;
extern __constant__ double c_dt;

__device__ double3 nb_interact(double3 acc, double4 bi, double4 bj);
__global__ void nb_forces(const Body *bodies, double3 *accel, int n);
__global__ void nb_integrate(Body *bodies, const double3 *accel, int n);
