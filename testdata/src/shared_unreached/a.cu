// -preserve-relocs keeps device functions no kernel calls, and nvlink lays out their static
// __shared__ objects too, in no kernel's section: in .nv_debug.shared, with their internal
// symbols, and their code's references resolved (found by scripts/fuzz-equiv: seed 39).
// Two kernels: with one, nvlink also counts the unreached function's barrier in the kernel's
// EIATTR_NUM_BARRIERS (orphan_barrier).
__device__ __noinline__ int f_unreached(int x)
{
    __shared__ __align__(8) char u[2];
    u[threadIdx.x % 2] = (char)x;
    __syncthreads();
    return u[(threadIdx.x + 1) % 2];
}
__device__ __noinline__ int f_both(int x)
{
    __shared__ int b[4];
    b[threadIdx.x % 4] = x;
    __syncthreads();
    return b[(threadIdx.x + 1) % 4];
}
__device__ __noinline__ int f_home(int x)
{
    __shared__ short h[3];
    h[threadIdx.x % 3] = (short)x;
    __syncthreads();
    return h[(threadIdx.x + 1) % 3];
}

__global__ void k_one(int *o) { o[0] = f_both(o[1]) + f_home(o[2]); }
__global__ void k_two(int *o)
{
    __shared__ char s[5];
    s[threadIdx.x % 5] = (char)o[1];
    __syncthreads();
    o[0] = f_both(o[3]) + s[(threadIdx.x + 1) % 5];
}
