// NCCL LSA all-reduce, two ways: by hand (ncclLsaBarrierSession<ncclCoopCta> with the
// comm's LSA barrier, ncclGetLsaPointer loads and stores to every peer, as NCCL's documented
// example does) and with the reduce/copy helper ncclLsaReduceSumCopy on ncclSymPtr windows.
#include "lsa.cuh"

__global__ void lsaAllReduceManual(ncclWindow_t sendwin, size_t sendoff, ncclWindow_t recvwin,
                                   size_t recvoff, size_t count, ncclDevComm devComm) {
  ncclTeam lsa = ncclTeamLsa(devComm);
  ncclLsaBarrierSession<ncclCoopCta> bar{ncclCoopCta(), devComm, lsa, devComm.lsaBarrier,
                                         blockIdx.x};
  bar.sync(ncclCoopCta(), cuda::memory_order_relaxed);
  const int rank = devComm.lsaRank, nRanks = devComm.lsaSize;
  const size_t tid = threadIdx.x + (size_t)blockDim.x * (rank + (size_t)blockIdx.x * nRanks);
  const size_t nthreads = (size_t)blockDim.x * gridDim.x * nRanks;
  for (size_t i = tid; i < count; i += nthreads) {
    float v = 0.f;
    for (int hop = 0; hop < nRanks; hop++) {
      // Start at the next peer so that ranks do not all hammer peer 0 at once.
      const float *src = (const float *)ncclGetLsaPointer(sendwin, sendoff, lsa_ring_peer(lsa, hop));
      v += src[i];
    }
    for (int peer = 0; peer < nRanks; peer++) {
      float *dst = (float *)ncclGetLsaPointer(recvwin, recvoff, peer);
      dst[i] = v;
    }
  }
  bar.sync(ncclCoopCta(), cuda::memory_order_release);
}

__global__ void lsaAllReduceHelper(ncclWindow_t sendwin, size_t sendoff, ncclWindow_t recvwin,
                                   size_t recvoff, size_t count, ncclDevComm devComm) {
  ncclCoopCta cta;
  ncclLsaBarrierSession<ncclCoopCta> bar{cta, devComm, ncclTeamTagLsa(), blockIdx.x};
  bar.sync(cta, cuda::memory_order_relaxed);
  // Each block owns one slice of the buffer; every rank reduces its share of the slice.
  const size_t perBlock = (count + gridDim.x - 1) / gridDim.x;
  const size_t begin = perBlock * blockIdx.x;
  const size_t end = begin + perBlock < count ? begin + perBlock : count;
  if (begin < end) {
    const size_t perRank = (end - begin + devComm.lsaSize - 1) / devComm.lsaSize;
    const size_t mine = begin + perRank * devComm.lsaRank;
    if (mine < end) {
      const size_t n = mine + perRank < end ? perRank : end - mine;
      ncclSymPtr<float> src{sendwin, sendoff + mine * sizeof(float)};
      ncclSymPtr<float> dst{recvwin, recvoff + mine * sizeof(float)};
      ncclLsaReduceSumCopy(cta, src, dst, n, devComm);
    }
  }
  bar.sync(cta, cuda::memory_order_release);
}
