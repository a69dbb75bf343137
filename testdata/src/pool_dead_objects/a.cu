// Shared objects only dead code uses, and one no code uses, beside objects two kernels share
// (nvlink's pool). nvlink sorts them all with the pool (its sort is not stable, so the
// unused one still moves the others), places the dead ones at 0 and every pool object after
// the first above them, and leaves the unused one out: here the callee's array both kernels
// reach goes at 0x20, above the uncalled template's 32-byte array.
template <typename T> __device__ __noinline__ void fw(T *p)
{
    __shared__ T s[2];
    s[threadIdx.x & 1] = p[threadIdx.x];
    __syncthreads();
    p[threadIdx.x] = s[1 - (threadIdx.x & 1)];
}
template __device__ void fw<float4>(float4 *); // no kernel calls it

__shared__ int fsh[4];   // used by an uncalled function only
__shared__ int fsh2[4];  // both kernels'
__shared__ int unused[5];

__device__ __noinline__ void orphan(int *p)
{
    fsh[threadIdx.x & 3] = p[0];
    __syncthreads();
    p[1] = fsh[0];
}

__device__ __noinline__ void local_orphan(int *p)
{
    __shared__ int ls[5];
    ls[threadIdx.x % 5] = p[0];
    __syncthreads();
    p[1] = ls[1];
}

__global__ void k1(double *p)
{
    fw<double>(p);
    fsh2[threadIdx.x & 3] = 1;
    __syncthreads();
    p[2] = fsh2[1];
}

__global__ void k2(double *p)
{
    fw<double>(p);
    fsh2[threadIdx.x & 3] = 2;
    __syncthreads();
    p[2] = fsh2[2];
}
