#include "shapes.cuh"

__device__ int g_destroyed = 0;

__device__ Circle::~Circle() { atomicAdd(&g_destroyed, 1); }
__device__ float Circle::area() const { return 3.14159265f * r * r; }
__device__ float Circle::perimeter() const { return 2.0f * 3.14159265f * r; }

__device__ Rect::~Rect() { atomicAdd(&g_destroyed, 1); }
__device__ float Rect::area() const { return w * h; }
__device__ float Rect::perimeter() const { return 2.0f * (w + h); }

__device__ Square::~Square() { atomicAdd(&g_destroyed, 10); }

__device__ Shape *make_shape(int kind, float a, float b) {
  switch (kind % 3) {
  case 0: return new Circle(a);
  case 1: return new Rect(a, b);
  default: return new Square(a);
  }
}
