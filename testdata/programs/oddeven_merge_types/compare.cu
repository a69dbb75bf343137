#include "sort.cuh"

template <typename T> __device__ bool lessKey(const T &a, const T &b) { return a < b; }

// NaNs sort last.
template <> __device__ bool lessKey<float>(const float &a, const float &b) {
  if (isnan(a)) return false;
  if (isnan(b)) return true;
  return a < b;
}

template __device__ bool lessKey<int>(const int &, const int &);
template __device__ bool lessKey<double>(const double &, const double &);
template __device__ bool lessKey<unsigned long long>(const unsigned long long &, const unsigned long long &);
