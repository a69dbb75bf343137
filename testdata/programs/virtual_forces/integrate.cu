#include <cstdio>
#include "forces.cuh"

__global__ void buildFields(float g, float k, float drag);
__global__ void destroyFields();

__global__ void integrate(Particle *ps, int n, float dt, float *energy) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Particle p = ps[i];
  float3 f = make_float3(0.f, 0.f, 0.f);
  float e = 0.f;
  for (int k = 0; k < gFieldCount; ++k) {
    const ForceField *ff = gFields[k];
    float3 fk = ff->force(p);
    f.x += fk.x; f.y += fk.y; f.z += fk.z;
    e += ff->potential(p);
  }
  float inv = 1.f / p.mass;
  p.vel.x += dt * f.x * inv; p.vel.y += dt * f.y * inv; p.vel.z += dt * f.z * inv;
  p.pos.x += dt * p.vel.x; p.pos.y += dt * p.vel.y; p.pos.z += dt * p.vel.z;
  ps[i] = p;
  atomicAdd(energy, e + 0.5f * p.mass * (p.vel.x * p.vel.x + p.vel.y * p.vel.y + p.vel.z * p.vel.z));
}

__global__ void tagKernel(int *tags) {
  const Spring *s = static_cast<const Spring *>(gFields[1]);
  const Describable *d = s;
  tags[threadIdx.x] = d->tag();
}

int main() {
  const int n = 1 << 16;
  Particle *ps;
  float *e;
  int *tags;
  cudaMallocManaged(&ps, n * sizeof(Particle));
  cudaMallocManaged(&e, sizeof(float));
  cudaMallocManaged(&tags, 32 * sizeof(int));
  for (int i = 0; i < n; ++i) ps[i] = Particle{make_float3(i * 1e-3f, 1.f, 0.f), make_float3(0.f, 0.f, 0.f), 1.f};
  buildFields<<<1, 1>>>(9.81f, 4.f, 0.1f);
  for (int s = 0; s < 10; ++s) {
    *e = 0.f;
    integrate<<<n / 256, 256>>>(ps, n, 1e-3f, e);
    cudaDeviceSynchronize();
  }
  tagKernel<<<1, 32>>>(tags);
  destroyFields<<<1, 1>>>();
  cudaDeviceSynchronize();
  printf("energy %f tag %d\n", *e, tags[0]);
  return 0;
}
