#include <thrust/sort.h>
#include <thrust/reduce.h>
#include <thrust/transform.h>
#include "records.h"
void group_by_cell(const thrust::device_vector<float> &x, thrust::device_vector<float> &w,
                   thrust::device_vector<int> &cells, thrust::device_vector<float> &sums) {
  thrust::device_vector<int> keys(x.size());
  thrust::transform(x.begin(), x.end(), keys.begin(), CellOf{16.0f});
  thrust::sort_by_key(keys.begin(), keys.end(), w.begin());
  auto ends = thrust::reduce_by_key(keys.begin(), keys.end(), w.begin(), cells.begin(),
                                    sums.begin());
  cells.resize(ends.first - cells.begin());
  sums.resize(ends.second - sums.begin());
}
