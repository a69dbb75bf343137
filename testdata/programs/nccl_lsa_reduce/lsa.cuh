// Shared declarations for the NCCL LSA program: the device API header, a cross-file
// __device__ helper (defined in allgather.cu, called from allreduce.cu) and the kernels.
#pragma once
#include <nccl.h>
#include <nccl_device.h>

// The LSA rank `hop` steps after `rank` in a team (ncclTeam arithmetic, defined in allgather.cu).
__device__ int lsa_ring_peer(ncclTeam team, int hop);

__global__ void lsaAllReduceManual(ncclWindow_t sendwin, size_t sendoff, ncclWindow_t recvwin,
                                   size_t recvoff, size_t count, ncclDevComm devComm);
__global__ void lsaAllReduceHelper(ncclWindow_t sendwin, size_t sendoff, ncclWindow_t recvwin,
                                   size_t recvoff, size_t count, ncclDevComm devComm);
__global__ void lsaAllGather(ncclWindow_t sendwin, size_t sendoff, ncclWindow_t recvwin,
                             size_t recvoff, size_t count, ncclDevComm devComm);
__global__ void lsaRingShift(ncclWindow_t win, size_t off, int hops, ncclDevComm devComm);
