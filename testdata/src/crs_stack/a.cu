// A kernel whose stack is unbounded (it reaches a recursion) but which has a
// CRS_STACK_SIZE record of its own (ptxas writes one for its call to the double-division
// helper): nvlink sets the record to 0xffffffff where it stands; a kernel without one gets
// it at the end (found by scripts/fuzz-equiv).
__device__ int ping(int);
__device__ __noinline__ int leaf(int x) { return x; }
__device__ __noinline__ int pong(int x) { x = ping(x); return leaf(x); }
__device__ __noinline__ int ping(int x) { return x > 3 ? pong(x - 1) : x; }
__global__ void k_divides(int *o)
{
    int x = o ? o[threadIdx.x] : 0;
    x = pong(x);
    x = (int)((double)x * 1.4302319548424449 + 386097030.2136817 / (double)(x | 1));
    if (o) o[threadIdx.x] = x;
}
__global__ void k_plain(int *o) { o[0] = ping(o[1]); }
