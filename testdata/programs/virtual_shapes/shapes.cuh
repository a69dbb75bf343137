// Device-side polymorphism as users write it: an abstract base with a virtual destructor,
// derived shapes defined in another translation unit, objects made with new in a kernel.
#pragma once
#include <cstdio>

struct Shape {
  __device__ virtual ~Shape() {}
  __device__ virtual float area() const = 0;
  __device__ virtual float perimeter() const = 0;
  __device__ virtual const char *name() const { return "shape"; }
};

struct Circle : Shape {
  float r;
  __device__ explicit Circle(float r_) : r(r_) {}
  __device__ ~Circle() override;
  __device__ float area() const override;
  __device__ float perimeter() const override;
  __device__ const char *name() const override { return "circle"; }
};

struct Rect : Shape {
  float w, h;
  __device__ Rect(float w_, float h_) : w(w_), h(h_) {}
  __device__ ~Rect() override;
  __device__ float area() const override;
  __device__ float perimeter() const override;
};

struct Square : Rect {
  __device__ explicit Square(float s) : Rect(s, s) {}
  __device__ ~Square() override;
  __device__ const char *name() const override { return "square"; }
};

__device__ Shape *make_shape(int kind, float a, float b);
__device__ extern int g_destroyed;
