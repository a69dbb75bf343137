#include "shapes.cuh"
#include <cuda_runtime.h>

__global__ void build_scene(const int *, const float *, const float *, int);
__global__ void measure_scene(float *, float *, int);
__global__ void describe_scene(int);
__global__ void destroy_scene(int);

// A kernel that makes and drops a temporary through the base pointer.
__global__ void transient_total(float *out, int n) {
  float s = 0.f;
  for (int i = 0; i < n; ++i) {
    Shape *p = make_shape(i, 1.0f + i, 2.0f);
    s += p->area();
    delete p;
  }
  *out = s;
}

int main() {
  const int n = 64;
  int *kinds; float *a, *b, *ar, *pe, *t;
  cudaMalloc(&kinds, n * sizeof(int)); cudaMalloc(&a, n * 4); cudaMalloc(&b, n * 4);
  cudaMalloc(&ar, n * 4); cudaMalloc(&pe, n * 4); cudaMalloc(&t, 4);
  build_scene<<<1, 64>>>(kinds, a, b, n);
  measure_scene<<<1, 64>>>(ar, pe, n);
  describe_scene<<<1, 32>>>(n);
  destroy_scene<<<1, 64>>>(n);
  transient_total<<<1, 1>>>(t, 8);
  cudaDeviceSynchronize();
  return 0;
}
