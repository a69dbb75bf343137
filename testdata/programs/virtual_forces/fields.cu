#include "forces.cuh"

__device__ float3 Gravity::force(const Particle &p) const { return make_float3(0.f, -g_ * p.mass, 0.f); }
__device__ float Gravity::potential(const Particle &p) const { return g_ * p.mass * p.pos.y; }

__device__ float3 Spring::force(const Particle &p) const {
  return make_float3(-k_ * (p.pos.x - anchor_.x), -k_ * (p.pos.y - anchor_.y), -k_ * (p.pos.z - anchor_.z));
}
__device__ float Spring::potential(const Particle &p) const {
  float dx = p.pos.x - anchor_.x, dy = p.pos.y - anchor_.y, dz = p.pos.z - anchor_.z;
  return 0.5f * k_ * (dx * dx + dy * dy + dz * dz);
}
__device__ int Spring::tag() const { return 2; }

__device__ float3 Drag::force(const Particle &p) const {
  float s = -c_ * sqrtf(p.vel.x * p.vel.x + p.vel.y * p.vel.y + p.vel.z * p.vel.z);
  return make_float3(s * p.vel.x, s * p.vel.y, s * p.vel.z);
}
