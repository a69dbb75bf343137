// Shared declarations of the NVSHMEM halo/work-queue program.
#pragma once
#include <nvshmem.h>
#include <nvshmemx.h>

struct HaloStats {
  unsigned long long puts, tickets;
  float last_sum;
};

// queue.cu
extern __device__ HaloStats g_stats;
__device__ int take_ticket(int *queue_head, int root_pe);
__device__ int left_pe(int me, int npes);
__device__ int right_pe(int me, int npes);

// halo.cu
__global__ void haloExchange(float *field, float *mirror, int n, int iters);
// queue.cu
__global__ void drainQueue(int *queue_head, float *work, float *results, int items);
// reduce.cu
__global__ void globalSum(float *dst, const float *src, int count);
__global__ void teamMax(nvshmem_team_t team, float *dst, const float *src, int count);
