// sm_100+ -lineinfo: several kernels whose fences nvlink's re-finalization strips (one of
// them twice, in a loop, another with a system fence), next to one that calls out and keeps
// its code: each kernel's line sequence moves with its own code, rows before, between and
// after the removed instructions, and the sequence's end with the re-padded code.
#include <cooperative_groups.h>
__device__ unsigned flags[64];
__device__ int sink;

__global__ void publish_twice(int *p, int n)
{
    for (int round = 0; round < 2; ++round) {
        int i = threadIdx.x + round * blockDim.x;
        if (i < n)
            p[i] = i * round;
        __threadfence();
        atomicAdd(&flags[round], 1u);
    }
}

__global__ void publish_system(int *p, int n, int step)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int acc = 0;
    for (int k = 0; k < n; k += step)
        acc += p[(i + k) % n];
    p[i % n] = acc;
    __threadfence_system();
    atomicExch(&flags[i & 63], 1u);
}

__device__ __noinline__ int helper(int x) { return x * 3 + sink; }

__global__ void calls_out(int *p)
{
    p[threadIdx.x] = helper(p[threadIdx.x]);
    __threadfence();
    atomicAdd(&flags[1], 1u);
}
