#include "forces.cuh"

__device__ ForceField *gFields[MAX_FIELDS];
__device__ int gFieldCount;
__device__ __align__(16) unsigned char gFieldStorage[MAX_FIELDS * 64];

__global__ void buildFields(float g, float k, float drag) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  int n = 0;
  gFields[n] = new (gFieldStorage + 64 * n) Gravity(g); ++n;
  gFields[n] = new (gFieldStorage + 64 * n) Spring(make_float3(0.f, 1.f, 0.f), k); ++n;
  gFields[n] = new (gFieldStorage + 64 * n) Drag(drag); ++n;
  gFieldCount = n;
}

__global__ void destroyFields() {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  for (int i = 0; i < gFieldCount; ++i) gFields[i]->~ForceField();
  gFieldCount = 0;
}
