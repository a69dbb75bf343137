// With a live indirect call of the same prototype, the taken functions' callees stay too.
typedef long (*lop_t)(long);

__device__ lop_t lslot;

__device__ __noinline__ long h_live(long x) { return x * 7 + 2; }
__device__ __noinline__ long t_live(long x) { return h_live(x) - 1; }
__device__ __noinline__ void store_dead() { lslot = t_live; }
__device__ __noinline__ long call_through(lop_t f, long x) { return f(x); }

__global__ void k_indirect(long *o) { o[threadIdx.x] = call_through(lslot, o[0]); }
