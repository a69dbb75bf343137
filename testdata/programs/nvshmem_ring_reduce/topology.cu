#include "ring.cuh"

__device__ int ring_neighbor(int pe, int npes, int hop) { return (pe + hop) % npes; }

__global__ void ringShift(int *dst, int hops) {
  int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
  for (int h = 1; h <= hops; ++h) {
    if (threadIdx.x == 0) nvshmem_int_p(dst + h - 1, me * 100 + h, ring_neighbor(me, npes, h));
    nvshmem_barrier_all();
  }
}
