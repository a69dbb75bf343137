// Thrust with extended device lambdas (trailing return types: thrust queries them on the
// host) calling sync.cu's __device__ functions: energy by
// transform_reduce, keys sorted by a lambda comparator, runs scanned by key, a count_if.
#include <thrust/count.h>
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/scan.h>
#include <thrust/sort.h>
#include <thrust/transform_reduce.h>
#include "shared.cuh"

PipelineResult runPipeline(float *data, int *keys, int n) {
  thrust::device_ptr<float> d(data);
  thrust::device_ptr<int> k(keys);
  PipelineResult r{};
  r.energy = thrust::transform_reduce(
      thrust::device, d, d + n, [] __device__(float x) -> float { float p = poly_eval(x); return p * p; },
      0.f, thrust::plus<float>());
  const int buckets = 16;
  thrust::sort_by_key(thrust::device, k, k + n, d,
                      [=] __device__(int a, int b) -> bool { return (a % buckets) < (b % buckets); });
  thrust::inclusive_scan_by_key(
      thrust::device, k, k + n, d, d,
      [=] __device__(int a, int b) -> bool { return a % buckets == b % buckets; },
      [] __device__(float a, float b) -> float { return a + poly_eval(b); });
  r.above = thrust::count_if(thrust::device, d, d + n,
                             [=] __device__(float x) -> bool { return bucket_of(x, buckets) > buckets / 2; });
  r.last_run = d[n - 1];
  return r;
}
