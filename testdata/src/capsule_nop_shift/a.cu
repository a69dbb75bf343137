// sm_100+: a constant load after a divergent call. ptxas's finalizer puts a NOP before the
// reconvergence point; the capsule's instruction numbering does not count it, so the record
// that takes the linked constant offset is found one instruction earlier than in the SASS.
__constant__ int first[3] = {1, 2, 3};
extern __device__ int g(int x);

__device__ __noinline__ int f(int x)
{
    int r = x;
    if (x > 3)
        r = g(x);
    extern __constant__ int later;
    return r + later;
}

__global__ void k(int *out) { out[threadIdx.x] = f(out[threadIdx.x]) + first[threadIdx.x % 3]; }
