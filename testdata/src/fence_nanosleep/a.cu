// A kernel with a GPU-wide fence that calls nothing and waits with __nanosleep, as cub's
// decoupled look-back does (found by testdata/programs/thrust_pipeline): on sm_100+ nvlink
// re-finalizes it, dropping the fence preamble, and NANOSLEEP (opcode 0x95d, a duration,
// no target) moves with the rest of the code.
__global__ void k_publish_wait(int *flag, int *o)
{
    o[threadIdx.x] = 1;
    __threadfence();
    if (threadIdx.x == 0) {
        while (atomicAdd(flag, 0) == 0)
            __nanosleep(100);
    }
    __syncthreads();
    o[threadIdx.x + 32] = 2;
}

// The register form (opcode 0x35d: a duration the kernel computes; NCCL's LSA barriers
// write `NANOSLEEP RZ`, found by testdata/programs/nccl_lsa_reduce).
__global__ void k_spin(volatile int *flag, unsigned ns)
{
    while (*flag == 0)
        __nanosleep(ns);
    __threadfence();
    flag[1] = 1;
}
