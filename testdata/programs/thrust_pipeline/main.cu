#include <cstdio>
#include <thrust/transform_reduce.h>
#include <thrust/sequence.h>
#include "records.h"
float energy(const thrust::device_vector<float> &w) {
  return thrust::transform_reduce(w.begin(), w.end(), Square{}, 0.0f, thrust::plus<float>());
}
int main() {
  const int n = 1 << 16;
  thrust::device_vector<float> x(n), w(n, 1.0f), sums(n);
  thrust::device_vector<int> cells(n);
  thrust::sequence(x.begin(), x.end(), 0.0f, 1.0f / n);
  group_by_cell(x, w, cells, sums);
  thrust::device_vector<float> heavy(sums.size());
  int k = select_heavy(thrust::raw_pointer_cast(sums.data()), (int)sums.size(), 100.0f,
                       thrust::raw_pointer_cast(heavy.data()));
  printf("%d cells, %d heavy, energy %f\n", (int)cells.size(), k, energy(w));
  return 0;
}
