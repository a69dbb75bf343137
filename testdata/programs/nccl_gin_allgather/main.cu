// Host side: a device communicator with GIN signals, LSA barriers and an LL all-to-all
// buffer; registers a symmetric window and launches the kernels of ring.cu and bcast.cu.
// Compiled, not run.
#include <cstdio>
#include <cuda_runtime.h>
#include "gather.cuh"

static int run(ncclComm_t comm, int rank, int nRanks) {
  const size_t chunk = 1 << 20, bytes = chunk * nRanks;
  const int blocks = 4, threads = 256;
  ncclLLA2AHandle a2aHandle;
  ncclDevResourceRequirements_t a2aReq;
  ncclLLA2ACreateRequirement(blocks, ncclLLA2ACalcSlots(2 * nRanks, sizeof(int)), &a2aHandle,
                             &a2aReq);
  ncclDevCommRequirements_t reqs = NCCL_DEV_COMM_REQUIREMENTS_INITIALIZER;
  reqs.resourceRequirementsList = &a2aReq;
  reqs.lsaBarrierCount = blocks;
  reqs.barrierCount = blocks;
  reqs.ginSignalCount = 1;
  reqs.ginForceEnable = true;
  ncclDevComm devComm;
  if (ncclDevCommCreate(comm, &reqs, &devComm) != ncclSuccess) return 1;
  void *buf;
  ncclMemAlloc(&buf, bytes);
  ncclWindow_t win;
  ncclCommWindowRegister(comm, buf, bytes, &win, NCCL_WIN_COLL_SYMMETRIC);
  int *counts, *all;
  cudaMalloc(&counts, nRanks * sizeof(int));
  cudaMalloc(&all, 2 * nRanks * sizeof(int));
  ginRingAllGather<<<1, threads>>>(win, chunk, 0, devComm);
  lsaBroadcast<<<blocks, threads>>>(win, 0, chunk / sizeof(float), 0, devComm);
  lowLatencyCounts<<<1, 64>>>(a2aHandle, counts, all, devComm);
  cudaDeviceSynchronize();
  int h;
  cudaMemcpy(&h, all, sizeof h, cudaMemcpyDeviceToHost);
  printf("rank %d/%d: %d\n", rank, nRanks, h);
  ncclCommWindowDeregister(comm, win);
  ncclDevCommDestroy(comm, &devComm);
  ncclMemFree(buf);
  return 0;
}

int main() {
  ncclComm_t comm;
  ncclUniqueId id;
  ncclGetUniqueId(&id);
  cudaSetDevice(0);
  ncclCommInitRank(&comm, 1, id, 0);
  int rc = run(comm, 0, 1);
  ncclCommDestroy(comm);
  return rc;
}
