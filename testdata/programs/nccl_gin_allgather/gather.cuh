// Shared declarations of the NCCL GIN all-gather program.
#pragma once
#include <nccl.h>
#include <nccl_device.h>

// ring.cu
__device__ int ring_step_peer(ncclTeam team, int step);
__device__ size_t chunk_offset(int rank, size_t chunkBytes);
extern __device__ unsigned long long g_progress[4];

__global__ void ginRingAllGather(ncclWindow_t win, size_t chunkBytes, ncclGinSignal_t sig,
                                 ncclDevComm devComm);
// bcast.cu
__global__ void lsaBroadcast(ncclWindow_t win, size_t off, size_t count, int root,
                             ncclDevComm devComm);
__global__ void lowLatencyCounts(ncclLLA2AHandle handle, const int *localCounts, int *allCounts,
                                 ncclDevComm devComm);
