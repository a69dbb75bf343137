// Team collectives: a world sum reduction issued by one thread, a block-wide max over a team
// the host split off, and the team's block barrier.
#include <cstdio>
#include "halo.cuh"

__global__ void globalSum(float *dst, const float *src, int count) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    nvshmem_float_sum_reduce(NVSHMEM_TEAM_WORLD, dst, src, count);
    g_stats.last_sum = dst[0];
  }
}

__global__ void teamMax(nvshmem_team_t team, float *dst, const float *src, int count) {
  if (nvshmem_team_my_pe(team) < 0) return;
  nvshmemx_float_max_reduce_block(team, dst, src, count);
  nvshmemx_barrier_block(team);
}

int main() {
  nvshmem_init();
  const int mype = nvshmem_my_pe(), npes = nvshmem_n_pes();
  cudaSetDevice(nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE));
  const int n = 1024, items = 4096;
  float *field = (float *)nvshmem_calloc(n + 2, sizeof(float));
  float *mirror = (float *)nvshmem_calloc(n, sizeof(float));
  float *work = (float *)nvshmem_malloc(items * sizeof(float));
  float *results = (float *)nvshmem_malloc(items * sizeof(float));
  float *sum = (float *)nvshmem_malloc(n * sizeof(float));
  int *head = (int *)nvshmem_calloc(1, sizeof(int));
  int iters = 8;
  void *args[] = {&field, &mirror, (void *)&n, &iters};
  nvshmemx_collective_launch((const void *)haloExchange, 1, 256, args, 0, 0);
  drainQueue<<<4, 64>>>(head, work, results, items);
  nvshmem_barrier_all();
  globalSum<<<1, 32>>>(sum, field + 1, n);
  nvshmem_team_t even;
  nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, nullptr, 0, &even);
  teamMax<<<1, 128>>>(even, sum, field + 1, n);
  cudaDeviceSynchronize();
  float h;
  cudaMemcpy(&h, sum, sizeof h, cudaMemcpyDeviceToHost);
  printf("pe %d/%d: %f\n", mype, npes, h);
  nvshmem_team_destroy(even);
  nvshmem_free(field);
  nvshmem_free(mirror);
  nvshmem_free(work);
  nvshmem_free(results);
  nvshmem_free(sum);
  nvshmem_free(head);
  nvshmem_finalize();
  return 0;
}
