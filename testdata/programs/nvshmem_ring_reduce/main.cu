#include <cstdio>
#include "ring.cuh"

int main() {
  nvshmem_init();
  int mype = nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE);
  cudaSetDevice(mype);
  const int count = 256;
  int *a = (int *)nvshmem_malloc(count * sizeof(int));
  int *b = (int *)nvshmem_malloc(count * sizeof(int));
  uint64_t *flag = (uint64_t *)nvshmem_calloc(1, sizeof(uint64_t));
  int hops = 4;
  void *args[] = {&a, &hops};
  nvshmemx_collective_launch((const void *)ringShift, 1, 32, args, 0, 0);
  teamSum<<<1, 256>>>(b, a, count);
  signalPut<<<1, 128>>>(a, b, count, flag);
  cudaDeviceSynchronize();
  int h;
  cudaMemcpy(&h, a, sizeof h, cudaMemcpyDeviceToHost);
  printf("pe %d: %d\n", mype, h);
  nvshmem_free(a);
  nvshmem_free(b);
  nvshmem_finalize();
  return 0;
}
