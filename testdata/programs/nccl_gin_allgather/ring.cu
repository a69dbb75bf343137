// Ring all-gather over GIN: at step s every rank forwards the chunk it got at step s-1 to
// the next rank with one put that increments the receiver's signal, then waits until its
// own signal has counted s+1 arrivals. The window holds nRanks chunks, rank r's at r.
#include "gather.cuh"

__device__ unsigned long long g_progress[4];

__device__ int ring_step_peer(ncclTeam team, int step) {
  return (team.rank + step + team.nRanks) % team.nRanks;
}

__device__ size_t chunk_offset(int rank, size_t chunkBytes) { return (size_t)rank * chunkBytes; }

__global__ void ginRingAllGather(ncclWindow_t win, size_t chunkBytes, ncclGinSignal_t sig,
                                 ncclDevComm devComm) {
  ncclCoopCta cta;
  ncclTeam world = ncclTeamWorld(devComm);
  ncclGin gin{devComm, 0};
  ncclBarrierSession<ncclCoopCta> bar{cta, ncclTeamTagWorld(), gin, blockIdx.x};
  bar.sync(cta, cuda::memory_order_relaxed, ncclGinFenceLevel::Relaxed);
  const int next = ring_step_peer(world, 1);
  for (int s = 0; s < world.nRanks - 1; ++s) {
    const int owner = ring_step_peer(world, -s);  // chunk we hold and forward now
    const size_t off = chunk_offset(owner, chunkBytes);
    if (threadIdx.x == 0) {
      gin.put(world, next, win, off, win, off, chunkBytes, ncclGin_SignalInc{sig});
      atomicAdd(&g_progress[0], 1ull);
    }
    gin.waitSignal(cta, sig, (uint64_t)s + 1);
  }
  gin.flush(cta);
  if (threadIdx.x == 0) gin.resetSignal(sig);
  bar.sync(cta, cuda::memory_order_release, ncclGinFenceLevel::Relaxed);
}
