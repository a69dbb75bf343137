#pragma once
#include <cuda_runtime.h>

template <typename T> struct Ascending {
  __device__ bool operator()(const T &a, const T &b) const { return a < b; }
};
template <typename T> struct Descending {
  __device__ bool operator()(const T &a, const T &b) const { return b < a; }
};

template <typename T> __device__ bool lessKey(const T &a, const T &b);
template <> __device__ bool lessKey<float>(const float &a, const float &b);

template <typename T, typename Cmp, int TILE>
__global__ void oddEvenTileSort(T *keys, unsigned *vals, int n, Cmp cmp);
template <typename T, typename Cmp>
__global__ void mergePass(const T *inK, const unsigned *inV, T *outK, unsigned *outV, int n, int width, Cmp cmp);

#define DECLARE_SORT(T, C)                                                                 \
  extern template __global__ void oddEvenTileSort<T, C<T>, 1024>(T *, unsigned *, int, C<T>); \
  extern template __global__ void mergePass<T, C<T>>(const T *, const unsigned *, T *, unsigned *, int, int, C<T>);
DECLARE_SORT(int, Ascending)
DECLARE_SORT(float, Ascending)
DECLARE_SORT(double, Descending)
DECLARE_SORT(unsigned long long, Ascending)
