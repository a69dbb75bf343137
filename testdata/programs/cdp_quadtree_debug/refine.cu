#include "quad.cuh"

__global__ void k_refine(Interval iv, double tol, double *total) {
  double m = 0.5 * (iv.a + iv.b);
  double whole = simpson(iv.a, iv.b);
  double halves = simpson(iv.a, m) + simpson(m, iv.b);
  if (fabs(whole - halves) < 15.0 * tol || iv.depth >= 12) {
    atomicAdd(total, halves);
    return;
  }
  if (iv.depth >= 6) {
    // Deep enough: hand the remaining pieces to a batch kernel.
    Interval *pieces;
    cudaMalloc(&pieces, 16 * sizeof(Interval));
    double w = (iv.b - iv.a) / 16;
    for (int i = 0; i < 16; ++i) pieces[i] = Interval{iv.a + i * w, iv.a + (i + 1) * w, iv.depth + 1};
    k_leaf_batch<<<1, 16, 0, cudaStreamTailLaunch>>>(pieces, 16, total);
    return;
  }
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  k_refine<<<1, 1, 0, s>>>(Interval{iv.a, m, iv.depth + 1}, tol / 2, total);
  k_refine<<<1, 1, 0, s>>>(Interval{m, iv.b, iv.depth + 1}, tol / 2, total);
  cudaStreamDestroy(s);
}
