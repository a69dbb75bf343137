#include <thrust/device_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>
#include "functors.cuh"

float sample_variance(const thrust::device_vector<float> &v);

float run_stats(int n, int buckets, thrust::device_vector<float> &prefix) {
  thrust::device_vector<Sample> samples(n);
  thrust::transform(thrust::counting_iterator<unsigned>(0), thrust::counting_iterator<unsigned>(n),
                    samples.begin(), make_sample{buckets});
  thrust::sort(samples.begin(), samples.end(), by_bucket_then_value());

  thrust::device_vector<float> values(n);
  thrust::transform(samples.begin(), samples.end(), values.begin(), sample_value());
  thrust::transform(values.begin(), values.end(), values.begin(), clamp_op{0.05f, 0.95f});

  prefix.resize(n);
  thrust::inclusive_scan(values.begin(), values.end(), prefix.begin());
  return sample_variance(values);
}
