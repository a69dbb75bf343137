// Host side of the NCCL LSA program: creates a device communicator with LSA barriers,
// registers symmetric windows and launches the kernels of allreduce.cu and allgather.cu.
// It only declares and launches them; it is compiled, not run.
#include <cstdio>
#include <cuda_runtime.h>
#include "lsa.cuh"

static int run(ncclComm_t comm, int rank, int nRanks) {
  const size_t count = 1 << 16, bytes = count * sizeof(float);
  const int blocks = 8, threads = 256;
  ncclDevCommRequirements_t reqs = NCCL_DEV_COMM_REQUIREMENTS_INITIALIZER;
  reqs.lsaBarrierCount = blocks * threads / 32;
  ncclDevComm devComm;
  if (ncclDevCommCreate(comm, &reqs, &devComm) != ncclSuccess) return 1;
  void *send, *recv, *gather;
  ncclMemAlloc(&send, bytes);
  ncclMemAlloc(&recv, bytes);
  ncclMemAlloc(&gather, bytes * nRanks);
  ncclWindow_t sendwin, recvwin, gatherwin;
  ncclCommWindowRegister(comm, send, bytes, &sendwin, NCCL_WIN_COLL_SYMMETRIC);
  ncclCommWindowRegister(comm, recv, bytes, &recvwin, NCCL_WIN_COLL_SYMMETRIC);
  ncclCommWindowRegister(comm, gather, bytes * nRanks, &gatherwin, NCCL_WIN_COLL_SYMMETRIC);
  lsaAllReduceManual<<<blocks, threads>>>(sendwin, 0, recvwin, 0, count, devComm);
  lsaAllReduceHelper<<<blocks, threads>>>(sendwin, 0, recvwin, 0, count, devComm);
  lsaAllGather<<<blocks, threads>>>(sendwin, 0, gatherwin, 0, count, devComm);
  lsaRingShift<<<1, threads>>>(recvwin, 0, 4, devComm);
  cudaDeviceSynchronize();
  float h;
  cudaMemcpy(&h, recv, sizeof h, cudaMemcpyDeviceToHost);
  printf("rank %d/%d: %f\n", rank, nRanks, h);
  ncclCommWindowDeregister(comm, sendwin);
  ncclCommWindowDeregister(comm, recvwin);
  ncclCommWindowDeregister(comm, gatherwin);
  ncclDevCommDestroy(comm, &devComm);
  return 0;
}

int main() {
  int nDev = 0;
  cudaGetDeviceCount(&nDev);
  ncclComm_t comm;
  ncclUniqueId id;
  ncclGetUniqueId(&id);
  cudaSetDevice(0);
  ncclCommInitRank(&comm, 1, id, 0);
  int rc = run(comm, 0, 1);
  ncclCommDestroy(comm);
  return rc;
}
