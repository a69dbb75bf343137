#include <cstdio>
#include <thrust/device_vector.h>
#include <thrust/reduce.h>
#include <thrust/transform_reduce.h>
#include "functors.cuh"

float run_stats(int n, int buckets, thrust::device_vector<float> &prefix);

float sample_variance(const thrust::device_vector<float> &v) {
  float sum = thrust::reduce(v.begin(), v.end(), 0.0f, thrust::plus<float>());
  float mean = sum / v.size();
  float ss = thrust::transform_reduce(v.begin(), v.end(), squared_deviation(mean), 0.0f,
                                      thrust::plus<float>());
  return ss / (v.size() - 1);
}

int main() {
  thrust::device_vector<float> prefix;
  float var = run_stats(1 << 16, 8, prefix);
  float last = prefix.back();
  printf("variance %f prefix %f\n", var, last);
  return 0;
}
