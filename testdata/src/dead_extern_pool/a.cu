// A function no kernel calls (a default link drops it) names a 64-aligned extern
// __shared__ array; it comes first, so the .nv_debug.shared the arrays bring is made with
// it. nvlink counts the array in use though the function goes: the pool of b.cu's shared
// function (reached by two kernels) is aligned 64 for it, so is every kernel's section, and
// k1's own float array starts at 0x40 (0x10 without a.o).
// -preserve-relocs keeps the function: on sm_90 the arrays get symbols beside the pool and
// nvlink records the function's reference (at -1); elsewhere nvlink fails ("Internal error:
// reference to deleted symbol") where cubin-ld writes -1 unrecorded (docs/differences.md).
extern __shared__ __align__(64) char big[];
__device__ __noinline__ int dead_fn(int x)
{
    big[threadIdx.x] = (char)x;
    __syncthreads();
    return big[3];
}
