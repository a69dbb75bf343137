#include "body.h"

__constant__ double c_softening2;
__constant__ double c_dt;

__device__ double3 nb_interact(double3 acc, double4 bi, double4 bj) {
  double dx = bj.x - bi.x, dy = bj.y - bi.y, dz = bj.z - bi.z;
  double r2 = dx * dx + dy * dy + dz * dz + c_softening2;
  double inv = rsqrt(r2);
  double s = bj.w * inv * inv * inv;
  acc.x = fma(dx, s, acc.x);
  acc.y = fma(dy, s, acc.y);
  acc.z = fma(dz, s, acc.z);
  return acc;
}

__global__ void nb_integrate(Body *bodies, const double3 *accel, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Body b = bodies[i];
  double3 a = accel[i];
  b.vel.x += a.x * c_dt;
  b.vel.y += a.y * c_dt;
  b.vel.z += a.z * c_dt;
  b.pos.x += b.vel.x * c_dt;
  b.pos.y += b.vel.y * c_dt;
  b.pos.z += b.vel.z * c_dt;
  bodies[i] = b;
}
