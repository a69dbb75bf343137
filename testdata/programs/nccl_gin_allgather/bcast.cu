// LSA broadcast: after a barrier every non-root rank pulls the root's buffer through its LSA
// pointer, each warp span copying a strided share; and a low-latency all-to-all of per-peer
// counts (one slot per source rank) with a broadcast of this rank's total.
#include "gather.cuh"

__global__ void lsaBroadcast(ncclWindow_t win, size_t off, size_t count, int root,
                             ncclDevComm devComm) {
  const int warps = blockDim.x / 32, warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  ncclCoopWarpSpan span(0, warps, 0);
  ncclTeam lsa = ncclTeamLsa(devComm);
  ncclLsaBarrierSession<ncclCoopWarpSpan> bar{span, devComm, lsa, devComm.lsaBarrier,
                                              blockIdx.x};
  bar.sync(span, cuda::memory_order_acquire);
  if (lsa.rank != root) {
    const float4 *src = (const float4 *)ncclGetLsaPointer(win, off, root);
    float4 *dst = (float4 *)ncclGetLocalPointer(win, off);
    const size_t n4 = count / 4;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + warp * 32 + lane; i < n4;
         i += (size_t)gridDim.x * blockDim.x)
      dst[i] = src[i];
    if (threadIdx.x == 0) atomicAdd(&g_progress[1], (unsigned long long)n4);
  }
  bar.sync(span, cuda::memory_order_release);
}

__global__ void lowLatencyCounts(ncclLLA2AHandle handle, const int *localCounts, int *allCounts,
                                 ncclDevComm devComm) {
  ncclCoopCta cta;
  ncclTeam lsa = ncclTeamLsa(devComm);
  ncclLLA2ASession<ncclCoopCta> a2a{cta, devComm, lsa, handle, blockIdx.x, 2 * lsa.nRanks};
  // Slot r: what rank r sends me; slot nRanks + r: rank r's broadcast total.
  int total = 0;
  for (int p = threadIdx.x; p < lsa.nRanks; p += blockDim.x) {
    a2a.send(ring_step_peer(lsa, p), lsa.rank, localCounts[ring_step_peer(lsa, p)]);
    total += localCounts[p];
  }
  if (threadIdx.x == 0) a2a.bcast(lsa.nRanks + lsa.rank, total);
  for (int r = threadIdx.x; r < lsa.nRanks; r += blockDim.x) {
    allCounts[r] = a2a.recv<int>(r);
    allCounts[lsa.nRanks + r] = a2a.recv<int>(lsa.nRanks + r);
  }
  a2a.endEpoch(cta);
  if (threadIdx.x == 0) atomicAdd(&g_progress[2], 1ull);
}
