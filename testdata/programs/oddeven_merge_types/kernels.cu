#include "sort.cuh"

template <typename T, typename Cmp>
__device__ __forceinline__ void compareSwap(T *k, unsigned *v, int i, int j, Cmp cmp) {
  if (cmp(k[j], k[i])) {
    T t = k[i]; k[i] = k[j]; k[j] = t;
    unsigned u = v[i]; v[i] = v[j]; v[j] = u;
  }
}

template <typename T, typename Cmp, int TILE>
__global__ void oddEvenTileSort(T *keys, unsigned *vals, int n, Cmp cmp) {
  __shared__ T sk[TILE];
  __shared__ unsigned sv[TILE];
  int base = blockIdx.x * TILE;
  for (int i = threadIdx.x; i < TILE; i += blockDim.x) {
    bool in = base + i < n;
    sk[i] = in ? keys[base + i] : T(0);
    sv[i] = in ? vals[base + i] : 0xffffffffu;
  }
  __syncthreads();
  for (int p = 1; p < TILE; p <<= 1)
    for (int k = p; k >= 1; k >>= 1) {
      for (int t = threadIdx.x; t < TILE / 2; t += blockDim.x) {
        int i = t % k, j = k % p + (t / k) * 2 * k;
        int a = i + j, b = a + k;
        if (b < TILE && a / (2 * p) == b / (2 * p)) compareSwap(sk, sv, a, b, cmp);
      }
      __syncthreads();
    }
  for (int i = threadIdx.x; i < TILE; i += blockDim.x)
    if (base + i < n) { keys[base + i] = sk[i]; vals[base + i] = sv[i]; }
}

template <typename T, typename Cmp>
__device__ int mergePath(const T *a, int na, const T *b, int nb, int diag, Cmp cmp) {
  int lo = max(0, diag - nb), hi = min(diag, na);
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (cmp(b[diag - 1 - mid], a[mid])) hi = mid; else lo = mid + 1;
  }
  return lo;
}

template <typename T, typename Cmp>
__global__ void mergePass(const T *inK, const unsigned *inV, T *outK, unsigned *outV, int n, int width, Cmp cmp) {
  int out = blockIdx.x * blockDim.x + threadIdx.x;
  if (out >= n) return;
  int start = out / (2 * width) * (2 * width);
  int mid = min(start + width, n), end = min(start + 2 * width, n);
  int diag = out - start;
  int ia = mergePath(inK + start, mid - start, inK + mid, end - mid, diag, cmp);
  int ib = diag - ia;
  bool takeA = ib >= end - mid || (start + ia < mid && !cmp(inK[mid + ib], inK[start + ia]));
  int src = takeA ? start + ia : mid + ib;
  outK[out] = inK[src];
  outV[out] = inV[src];
}

#define INSTANTIATE_SORT(T, C)                                                      \
  template __global__ void oddEvenTileSort<T, C<T>, 1024>(T *, unsigned *, int, C<T>); \
  template __global__ void mergePass<T, C<T>>(const T *, const unsigned *, T *, unsigned *, int, int, C<T>);
INSTANTIATE_SORT(int, Ascending)
INSTANTIATE_SORT(float, Ascending)
INSTANTIATE_SORT(double, Descending)
INSTANTIATE_SORT(unsigned long long, Ascending)

// Checks used by the tests: NaN-aware float keys and generic keys.
template <typename T>
__global__ void checkSorted(const T *k, int n, int *bad) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i + 1 < n && lessKey(k[i + 1], k[i])) atomicAdd(bad, 1);
}
template __global__ void checkSorted<float>(const float *, int, int *);
template __global__ void checkSorted<int>(const int *, int, int *);
template __global__ void checkSorted<double>(const double *, int, int *);
