extern __shared__ float dyn[];
__device__ __noinline__ int shared_fn(int x)
{
    __shared__ int s[4];
    s[threadIdx.x % 4] = x;
    __syncthreads();
    return s[1];
}
__global__ void k1(int *o)
{
    dyn[threadIdx.x] = (float)o[3];
    __syncthreads();
    o[0] = shared_fn(o[1]) + (int)dyn[2];
}
__global__ void k2(int *o) { o[1] = shared_fn(o[2]); }
