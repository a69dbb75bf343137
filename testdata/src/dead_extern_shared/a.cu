// A function no kernel calls (a default link drops it) names an extern __shared__ array:
// nvlink still counts the array in use, so the output has the empty .nv_debug.shared the
// arrays bring (aligned 16 at most: this one asks for 128; sm_100+ covers the reserved
// bytes), made with this object though no kernel uses shared memory. -preserve-relocs and
// -g keep the function: its reference is -1 (-pr) or the array's symbol at 0 (-g).
extern __shared__ __align__(128) char dead_big[];
__device__ __noinline__ int dead_fn(int x)
{
    dead_big[threadIdx.x] = (char)x;
    __syncthreads();
    return dead_big[3];
}
