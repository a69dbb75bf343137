// Declarations shared by the thrust / libcu++ program.
#pragma once
#include <cuda/std/array>
#include <cuda/std/span>

// sync.cu
extern __device__ cuda::std::array<float, 8> g_poly;
extern __device__ int g_overflow;
__device__ float poly_eval(float x);
__device__ int bucket_of(float x, int buckets);
__global__ void stagedHistogram(const float *in, int n, int *hist, int buckets);
__global__ void claimSlots(const float *in, int n, float threshold, int *cursor, int *slots);

// pipeline.cu
struct PipelineResult {
  float energy;
  int above;
  float last_run;
};
PipelineResult runPipeline(float *data, int *keys, int n);
