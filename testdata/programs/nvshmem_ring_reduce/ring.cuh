#pragma once
#include <nvshmem.h>
#include <nvshmemx.h>

__device__ int ring_neighbor(int pe, int npes, int hop);
__global__ void ringShift(int *dst, int hops);
__global__ void teamSum(int *dst, const int *src, int count);
__global__ void signalPut(int *dst, const int *src, int count, uint64_t *flag);
