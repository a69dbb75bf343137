#include "compact.cuh"

__device__ unsigned int outCount;
__device__ unsigned int bucketCount[4];

__device__ unsigned int aggregatedIncrement(unsigned int *counter) {
  cg::coalesced_group active = cg::coalesced_threads();
  unsigned int base;
  if (active.thread_rank() == 0) base = atomicAdd(counter, active.size());
  base = active.shfl(base, 0);
  return base + active.thread_rank();
}

__device__ unsigned int bucketIncrement(int bucket) {
  cg::coalesced_group active = cg::coalesced_threads();
  auto same = cg::labeled_partition(active, bucket);
  unsigned int base = 0;
  if (same.thread_rank() == 0) base = atomicAdd(&bucketCount[bucket], same.size());
  return same.shfl(base, 0) + same.thread_rank();
}
