// Finishing a partial link whose .nv_debug.shared holds extern __shared__ arrays and device
// functions' static objects (found by scripts/fuzz-equiv: seeds 159, 217, 229, 256). The final
// link resolves the partial link's per-kernel externsharedinstance symbols to one, the first
// (k_first's, 0x10 here: it names a 16-aligned array and has no static object), and takes its
// value as the arrays' alignment in every kernel that names them: k_wide's 64-aligned array
// comes 16-aligned after its area and its callee's object. Each -r area stays whole as its
// kernel's first object; k_callee, which reaches the arrays only through a function, has none.
extern __shared__ __align__(16) int d16[];
extern __shared__ __align__(64) double d64[];

__device__ __noinline__ int f_pooled(int x)
{
    __shared__ __align__(8) char p[12];
    p[threadIdx.x % 12] = x;
    __syncthreads();
    return p[(threadIdx.x + 1) % 12];
}
__device__ __noinline__ int f_own(int x)
{
    __shared__ char t[5];
    t[threadIdx.x % 5] = x;
    __syncthreads();
    return t[(threadIdx.x + 1) % 5];
}
__device__ __noinline__ int f_arrays(int i) { return (int)d64[i] + f_pooled(i); }

__global__ void k_first(int *o) { d16[threadIdx.x] = 1; __syncthreads(); o[0] = d16[2]; }
__global__ void k_wide(int *o)
{
    d64[threadIdx.x] = 2;
    __syncthreads();
    o[0] = (int)d64[1] + f_own(o[1]);
}
__global__ void k_pool(int *o)
{
    __shared__ short s[3];
    s[threadIdx.x % 3] = o[1];
    d16[threadIdx.x] = 3;
    __syncthreads();
    o[0] = s[(threadIdx.x + 1) % 3] + d16[4] + f_pooled(o[2]);
}
__global__ void k_callee(int *o) { o[0] = f_arrays(threadIdx.x); }
__global__ void k_plain(int *o) { o[0] = 9; }
