#pragma once
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

typedef bool (*Predicate)(float);

extern __device__ unsigned int outCount;
extern __device__ unsigned int bucketCount[4];
extern __device__ Predicate predicateTable[3];

__device__ unsigned int aggregatedIncrement(unsigned int *counter);
__device__ unsigned int bucketIncrement(int bucket);
