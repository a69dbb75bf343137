// extern __shared__ arrays aligned above 16 (found by scripts/fuzz-equiv: seeds 16, 19, 34,
// 35): a kernel that reaches no static object and only such arrays gets no .nv.shared.<kernel>
// of its own, except on sm_90; each kernel's arrays start at its static bytes aligned for the
// arrays it uses (not the module's largest); .nv_debug.shared stays 16-aligned.
extern __shared__ __align__(16) char d16[];
extern __shared__ __align__(64) double d64[];

__device__ __noinline__ int f_static(int x)
{
    __shared__ char t[4];
    t[threadIdx.x % 4] = x;
    __syncthreads();
    return t[(threadIdx.x + 1) % 4];
}
__device__ __noinline__ int f_d64(int i) { return (int)d64[i]; }

__global__ void k_d16(int *o) { d16[threadIdx.x] = 1; __syncthreads(); o[0] = d16[3]; }
__global__ void k_d64(int *o) { d64[threadIdx.x] = 1; __syncthreads(); o[0] = (int)d64[3]; }
__global__ void k_d64_callee(int *o) { o[0] = f_d64(threadIdx.x); }
__global__ void k_d64_static(int *o) { d64[threadIdx.x] = 1; __syncthreads(); o[0] = (int)d64[3] + f_static(o[1]); }
__global__ void k_d16_static(int *o)
{
    __shared__ char s[4];
    s[threadIdx.x % 4] = o[1];
    d16[threadIdx.x] = 1;
    __syncthreads();
    o[0] = s[(threadIdx.x + 1) % 4] + d16[3];
}
