// Template helpers every file instantiates: under -rdc each instantiation is a weak
// function, and under -G each copy carries its own debug information.
#pragma once
template <typename T> __device__ __noinline__ T axpy(T a, T x, T y) { return a * x + y; }
template <typename T> __device__ __noinline__ T clamp01(T v) {
  return v < T(0) ? T(0) : (v > T(1) ? T(1) : v);
}
template <typename T, int N> struct Window {
  T v[N];
  __device__ T sum() const {
    T s = T(0);
    for (int i = 0; i < N; ++i) s += v[i];
    return s;
  }
};
template <typename T, int N> __device__ __noinline__ T window_mean(const T *p, int i) {
  Window<T, N> w;
  for (int k = 0; k < N; ++k) w.v[k] = p[i + k];
  return w.sum() / T(N);
}
__device__ float scale_factor(int i);
