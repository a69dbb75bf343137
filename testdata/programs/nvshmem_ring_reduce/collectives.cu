#include "ring.cuh"

__global__ void teamSum(int *dst, const int *src, int count) {
  nvshmemx_int_sum_reduce_block(NVSHMEM_TEAM_WORLD, dst, src, count);
}

__global__ void signalPut(int *dst, const int *src, int count, uint64_t *flag) {
  int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
  int peer = ring_neighbor(me, npes, 1);
  nvshmemx_int_put_signal_nbi_block(dst, src, count, flag, 1, NVSHMEM_SIGNAL_SET, peer);
  if (threadIdx.x == 0) nvshmem_signal_wait_until(flag, NVSHMEM_CMP_EQ, 1);
  __syncthreads();
}
