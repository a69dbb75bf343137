// -r -g with extern __shared__ arrays: no externsharedinstance symbols (kernels keep the
// arrays' names); each array's value is where the debugger finds it, the largest alignD(S)
// of the kernels whose own code names it (S: a kernel's own static bytes; D: the alignment
// of .nv_debug.shared), and a kernel's .nv.shared is sized for the largest of its arrays'
// values (a kernel whose arrays start at 0 as one that names none).
extern __shared__ __align__(16) int d16[];
extern __shared__ __align__(64) double d64[];

__device__ __noinline__ int f_obj(int x)
{
    __shared__ __align__(8) char t[6];
    t[threadIdx.x % 6] = x;
    __syncthreads();
    return t[(threadIdx.x + 1) % 6];
}
__device__ __noinline__ int f_arrays(int i) { return (int)d64[i] * 3; }

__global__ void k_plain16(int *o) { d16[threadIdx.x] = 1; __syncthreads(); o[0] = d16[2]; }
__global__ void k_static16(int *o)
{
    __shared__ char s[20];
    s[threadIdx.x % 20] = o[1];
    d16[threadIdx.x] = 2;
    __syncthreads();
    o[0] = s[(threadIdx.x + 1) % 20] + d16[4];
}
__global__ void k_plain64(int *o) { d64[threadIdx.x] = 3; __syncthreads(); o[0] = (int)d64[1] + f_obj(o[1]); }
__global__ void k_static64(int *o)
{
    __shared__ int s[40];
    s[threadIdx.x % 40] = o[1];
    d64[threadIdx.x] = 4;
    __syncthreads();
    o[0] = s[(threadIdx.x + 1) % 40] + (int)d64[2];
}
__global__ void k_callee(int *o) { o[0] = f_arrays(threadIdx.x) + f_obj(o[2]); }
__global__ void k_none(int *o) { o[0] = 5; }
