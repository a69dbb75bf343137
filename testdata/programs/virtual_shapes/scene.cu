#include "shapes.cuh"

// A scene kept on the device between launches.
__device__ Shape *g_scene[256];

__global__ void build_scene(const int *kinds, const float *a, const float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && i < 256) g_scene[i] = make_shape(kinds[i], a[i], b[i]);
}

__global__ void measure_scene(float *areas, float *perims, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && i < 256 && g_scene[i]) {
    areas[i] = g_scene[i]->area();
    perims[i] = g_scene[i]->perimeter();
  }
}

__global__ void describe_scene(int n) {
  for (int i = threadIdx.x; i < n && i < 256; i += blockDim.x)
    if (g_scene[i]) printf("%d: %s %f\n", i, g_scene[i]->name(), g_scene[i]->area());
}

__global__ void destroy_scene(int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && i < 256) {
    delete g_scene[i];
    g_scene[i] = nullptr;
  }
}
