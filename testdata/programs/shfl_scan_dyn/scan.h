#pragma once
__device__ int warp_incl_scan(int v, unsigned lane);
__global__ void scan_blocks(const int *in, int *out, int *sums, int n);
__global__ void scan_sums(int *sums, int count);
__global__ void add_offsets(int *out, const int *sums, int n);
