// Two objects whose partial links each hold extern __shared__ arrays and a device function's
// static object in .nv_debug.shared, linked -r together (tests/round_trip.rs links each object
// -r alone, then the outputs -r): the result equals the one-step -r of both, and its final
// link the one-step link's. (nvlink's -r of such outputs lays them out again its own way:
// docs/differences.md, "Partial links of partial links".)
extern __shared__ __align__(16) int dyn_a[];

__device__ __noinline__ int f_a(int x)
{
    __shared__ __align__(8) char t[6];
    t[threadIdx.x % 6] = x;
    __syncthreads();
    return t[(threadIdx.x + 1) % 6];
}

__global__ void k_a(int *o) { dyn_a[threadIdx.x] = 1; __syncthreads(); o[0] = dyn_a[2] + f_a(o[1]); }
