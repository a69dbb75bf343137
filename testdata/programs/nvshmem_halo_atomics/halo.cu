// 1-D halo exchange: field holds n interior cells between one halo cell on each side. Thread
// 0 puts the edge cells into the neighbours' halos (non-blocking), the whole block copies the
// interior to the right neighbour's mirror, then quiet + block barrier before the update.
#include "halo.cuh"

__global__ void haloExchange(float *field, float *mirror, int n, int iters) {
  const int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
  const int lp = left_pe(me, npes), rp = right_pe(me, npes);
  for (int it = 0; it < iters; ++it) {
    if (threadIdx.x == 0) {
      nvshmem_float_put_nbi(field + n + 1, field + n, 1, rp);  // my last -> right's left halo
      nvshmem_float_put_nbi(field, field + 1, 1, lp);         // my first -> left's right halo
      atomicAdd(&g_stats.puts, 2ull);
    }
    nvshmemx_putmem_block(mirror, field + 1, n * sizeof(float), rp);
    nvshmem_quiet();
    nvshmemx_barrier_all_block();
    for (int i = 1 + threadIdx.x; i <= n; i += blockDim.x) {
      float v = 0.25f * field[i - 1] + 0.5f * field[i] + 0.25f * field[i + 1];
      __syncthreads();
      field[i] = v + 0.001f * mirror[i - 1];
    }
    nvshmemx_barrier_all_block();
  }
}
