#include "sortnet.h"

__device__ void cmpSwap(unsigned &ka, unsigned &va, unsigned &kb, unsigned &vb, bool up) {
  if ((ka > kb) == up) {
    unsigned t = ka; ka = kb; kb = t;
    t = va; va = vb; vb = t;
  }
}

__device__ int mergePathSplit(const unsigned *a, int na, const unsigned *b, int nb, int diag) {
  int lo = max(0, diag - nb), hi = min(diag, na);
  while (lo < hi) {
    int mid = (lo + hi) >> 1;
    if (a[mid] <= b[diag - 1 - mid]) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
