// Deep call chain through stack frames: kernel -> mid -> leaf, each with local arrays.
extern __device__ int leaf(int *buf, int n);
__device__ __noinline__ int mid(int n)
{
    volatile int local[20];
    for (int i = 0; i < 20; ++i) local[i] = i * n;
    int tmp[20];
    for (int i = 0; i < 20; ++i) tmp[i] = local[(i * 7) % 20];
    return leaf(tmp, n) + local[n % 20];
}
__global__ void k_chain(int *out) { out[threadIdx.x] = mid(out[0]); }
__global__ void k_leafonly(int *out) { int b[4] = {1, 2, 3, 4}; out[threadIdx.x] = leaf(b, out[1]); }
__global__ void k_nostack(int *out) { out[threadIdx.x] = threadIdx.x; }
