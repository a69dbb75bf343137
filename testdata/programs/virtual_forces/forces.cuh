#pragma once
#include <new>
#include <cuda_runtime.h>

struct Particle { float3 pos, vel; float mass; };

class Describable {
public:
  __device__ virtual int tag() const = 0;
  __device__ virtual ~Describable() {}
};

class ForceField {
public:
  __device__ virtual float3 force(const Particle &p) const = 0;
  __device__ virtual float potential(const Particle &p) const { return 0.f; }
  __device__ virtual ~ForceField() {}
};

class Gravity : public ForceField {
public:
  __device__ explicit Gravity(float g) : g_(g) {}
  __device__ float3 force(const Particle &p) const override;
  __device__ float potential(const Particle &p) const override;
private:
  float g_;
};

class Spring : public ForceField, public Describable {
public:
  __device__ Spring(float3 anchor, float k) : anchor_(anchor), k_(k) {}
  __device__ float3 force(const Particle &p) const override;
  __device__ float potential(const Particle &p) const override;
  __device__ int tag() const override;
private:
  float3 anchor_;
  float k_;
};

class Drag : public ForceField {
public:
  __device__ explicit Drag(float c) : c_(c) {}
  __device__ float3 force(const Particle &p) const override;
private:
  float c_;
};

#define MAX_FIELDS 8
extern __device__ ForceField *gFields[MAX_FIELDS];
extern __device__ int gFieldCount;
extern __device__ unsigned char gFieldStorage[MAX_FIELDS * 64];
