#include "body.h"

__global__ void nb_forces(const Body *bodies, double3 *accel, int n) {
  __shared__ double4 tile[NB_TILE];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double4 me = i < n ? bodies[i].pos : make_double4(0, 0, 0, 0);
  double3 acc = make_double3(0, 0, 0);
  for (int base = 0; base < n; base += NB_TILE) {
    int j = base + threadIdx.x;
    tile[threadIdx.x] = j < n ? bodies[j].pos : make_double4(0, 0, 0, 0);
    __syncthreads();
#pragma unroll 8
    for (int k = 0; k < NB_TILE; ++k) acc = nb_interact(acc, me, tile[k]);
    __syncthreads();
  }
  if (i < n) accel[i] = acc;
}
