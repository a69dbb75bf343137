#pragma once
#include <thrust/functional.h>

struct Sample {
  float value;
  int bucket;
};

// Squares a deviation from a mean (used by transform_reduce in two files).
struct squared_deviation {
  float mean;
  __host__ __device__ explicit squared_deviation(float m) : mean(m) {}
  __host__ __device__ float operator()(float x) const {
    float d = x - mean;
    return d * d;
  }
};

struct by_bucket_then_value {
  __host__ __device__ bool operator()(const Sample &a, const Sample &b) const {
    return a.bucket < b.bucket || (a.bucket == b.bucket && a.value < b.value);
  }
};

struct clamp_op {
  float lo, hi;
  __host__ __device__ float operator()(float x) const { return x < lo ? lo : (x > hi ? hi : x); }
};

// Defined in noise.cu, called from functors instantiated in stats.cu.
__device__ float hash_noise(unsigned i);

struct make_sample {
  int buckets;
  __host__ __device__ Sample operator()(unsigned i) const {
#ifdef __CUDA_ARCH__
    float v = hash_noise(i);
#else
    float v = 0.0f;
#endif
    return Sample{v, static_cast<int>(i % buckets)};
  }
};

struct sample_value {
  __host__ __device__ float operator()(const Sample &s) const { return s.value; }
};
