// Functions' static __shared__ objects that stay in nvlink's pool (found by scripts/fuzz-equiv:
// seed 15): when one of them is in no kernel (f_dead) or in several, every kernel with static
// objects is aligned for all of them, reached or not, and for the extern arrays in use (here
// 32); a kernel using extern arrays is sized up to that alignment; and the executable link
// then has no .nv_debug.shared, as that alignment is above 16.
extern __shared__ __align__(32) int dyn[];

__device__ __noinline__ int f_home(int x)
{
    __shared__ __align__(2) char h[3];
    h[threadIdx.x % 3] = x;
    __syncthreads();
    return h[(threadIdx.x + 1) % 3];
}
__device__ __noinline__ int f_dead(int x)
{
    __shared__ __align__(8) char d[3];
    d[threadIdx.x % 3] = x;
    __syncthreads();
    return d[(threadIdx.x + 1) % 3];
}

__global__ void k_extern(int *o)
{
    int x = o[threadIdx.x];
    dyn[threadIdx.x] = x;
    __syncthreads();
    o[threadIdx.x] = x + dyn[0] + f_home(x);
}
__global__ void k_static(int *o)
{
    __shared__ char s[3];
    s[threadIdx.x % 3] = o[2];
    __syncthreads();
    o[0] = s[(threadIdx.x + 1) % 3];
}
// A kernel using no shared memory: sm_90 gives it a .nv.shared.<kernel> aligned for the
// pool (see shared_pool_all); the others give it none, the pool asking for more than 16.
__global__ void k_plain(int *o) { o[0] = 7; }
