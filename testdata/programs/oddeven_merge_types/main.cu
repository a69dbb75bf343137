#include <cstdio>
#include <utility>
#include "sort.cuh"

template <typename T, typename Cmp>
void sortKeys(T *k, unsigned *v, T *k2, unsigned *v2, int n, Cmp cmp) {
  oddEvenTileSort<T, Cmp, 1024><<<(n + 1023) / 1024, 256>>>(k, v, n, cmp);
  for (int w = 1024; w < n; w *= 2) {
    mergePass<T, Cmp><<<(n + 255) / 256, 256>>>(k, v, k2, v2, n, w, cmp);
    std::swap(k, k2);
    std::swap(v, v2);
  }
}

template <typename T, typename Cmp> void run(int n, Cmp cmp) {
  T *k, *k2;
  unsigned *v, *v2;
  cudaMallocManaged(&k, n * sizeof(T));
  cudaMallocManaged(&k2, n * sizeof(T));
  cudaMallocManaged(&v, n * sizeof(unsigned));
  cudaMallocManaged(&v2, n * sizeof(unsigned));
  for (int i = 0; i < n; ++i) { k[i] = T((i * 7919) % 10007); v[i] = i; }
  sortKeys(k, v, k2, v2, n, cmp);
  cudaDeviceSynchronize();
  printf("%f\n", (double)k[0]);
}

int main() {
  run<int>(1 << 16, Ascending<int>());
  run<float>(1 << 16, Ascending<float>());
  run<double>(1 << 15, Descending<double>());
  run<unsigned long long>(1 << 14, Ascending<unsigned long long>());
  return 0;
}
