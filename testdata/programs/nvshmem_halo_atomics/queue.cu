// A work queue held on one PE: threads take tickets with a remote fetch-and-add, fetch the
// work item with a remote get and record results locally.
#include "halo.cuh"

__device__ HaloStats g_stats;

__device__ int left_pe(int me, int npes) { return (me + npes - 1) % npes; }
__device__ int right_pe(int me, int npes) { return (me + 1) % npes; }

__device__ int take_ticket(int *queue_head, int root_pe) {
  int t = nvshmem_int_atomic_fetch_add(queue_head, 1, root_pe);
  atomicAdd(&g_stats.tickets, 1ull);
  return t;
}

__global__ void drainQueue(int *queue_head, float *work, float *results, int items) {
  const int root = 0;
  for (;;) {
    int t = take_ticket(queue_head, root);
    if (t >= items) break;
    float w = nvshmem_float_g(work + t, root);
    float pair[2];
    nvshmem_float_get(pair, work + (t & ~1), 2, root);
    results[t] = w * 2.f + pair[0] - pair[1];
  }
  nvshmem_fence();
}
