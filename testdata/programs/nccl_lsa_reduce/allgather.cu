// NCCL LSA all-gather and ring exchange: ncclLsaCopy of the local chunk into every peer's
// slot (ncclSymPtr offset arithmetic), per-warp ncclLsaBarrierSession<ncclCoopWarp>,
// ncclGetPeerPointer through the world team, ncclTeamRankToWorld, and the cross-file helper.
#include "lsa.cuh"

__device__ int lsa_ring_peer(ncclTeam team, int hop) {
  return (team.rank + hop) % team.nRanks;
}

__global__ void lsaAllGather(ncclWindow_t sendwin, size_t sendoff, ncclWindow_t recvwin,
                             size_t recvoff, size_t count, ncclDevComm devComm) {
  ncclCoopCta cta;
  ncclTeam lsa = ncclTeamLsa(devComm);
  ncclLsaBarrierSession<ncclCoopCta> bar{cta, devComm, lsa, devComm.lsaBarrier, blockIdx.x};
  bar.sync(cta, cuda::memory_order_relaxed);
  const size_t perBlock = (count + gridDim.x - 1) / gridDim.x;
  const size_t begin = perBlock * blockIdx.x;
  if (begin < count) {
    const size_t n = begin + perBlock < count ? perBlock : count - begin;
    const float *src = (const float *)ncclGetLocalPointer(sendwin, sendoff) + begin;
    // Our chunk lands at slot lsa.rank of every peer's receive buffer.
    ncclSymPtr<float> dst{recvwin, recvoff};
    dst += (size_t)lsa.rank * count + begin;
    ncclLsaCopy(cta, const_cast<float *>(src), dst, n, lsa);
  }
  bar.sync(cta, cuda::memory_order_release);
}

__global__ void lsaRingShift(ncclWindow_t win, size_t off, int hops, ncclDevComm devComm) {
  // One barrier per warp: the comm must have been created with lsaBarrierCount >= warps.
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  ncclCoopWarp w;
  ncclTeam lsa = ncclTeamLsa(devComm);
  ncclTeam world = ncclTeamWorld(devComm);
  ncclLsaBarrierSession<ncclCoopWarp> bar{w, devComm, lsa, devComm.lsaBarrier,
                                          (uint32_t)(blockIdx.x * (blockDim.x / 32) + warp)};
  for (int h = 1; h <= hops; ++h) {
    const int lsaPeer = lsa_ring_peer(lsa, h);
    const int worldPeer = ncclTeamRankToWorld(devComm, lsa, lsaPeer);
    int *slot = (int *)ncclGetPeerPointer(win, off, world, worldPeer);
    if (lane == 0) slot[warp * hops + h - 1] = devComm.rank * 100 + h;
    bar.sync(w, cuda::memory_order_acq_rel);
  }
}
