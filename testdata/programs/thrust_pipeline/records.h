// Particle records sorted and grouped on the device: keys are cell ids, values weights.
#pragma once
#include <thrust/device_vector.h>
struct CellOf {
  float inv_h;
  __host__ __device__ int operator()(float x) const { return (int)(x * inv_h); }
};
struct Square {
  __host__ __device__ float operator()(float w) const { return w * w; }
};
void group_by_cell(const thrust::device_vector<float> &x, thrust::device_vector<float> &w,
                   thrust::device_vector<int> &cells, thrust::device_vector<float> &sums);
int select_heavy(const float *sums, int n, float cut, float *out);
float energy(const thrust::device_vector<float> &w);
