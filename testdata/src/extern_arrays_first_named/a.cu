// extern __shared__ arrays of different alignments named by one kernel or function (ptxas
// often names one array for several that alias, in .rel or .rela entries): nvlink starts a
// kernel's arrays aligned as the array of the first relocation to one (in file order) in the
// kernel's own code, or else in the first function it reaches that has one, not as the
// largest; the kernel's .nv.shared is still aligned for the largest. Found by probing
// (testdata extern_shared_debug_r's first version).
extern __shared__ __align__(16) int d16[];
extern __shared__ __align__(64) int d64[];

__device__ __noinline__ int f_obj(int x)
{
    __shared__ __align__(8) char t[6];
    t[threadIdx.x % 6] = x;
    __syncthreads();
    return t[(threadIdx.x + 1) % 6];
}
__device__ __noinline__ int f_16_first(int i) { return d16[i + 2] + d64[i + 1]; }
__device__ __noinline__ int f_64_first(int i) { return d64[i] + d16[i + 1]; }

__global__ void k_16_first(int *o) { int i = threadIdx.x; o[0] = f_obj(o[1]) + d16[i + 1] + d64[i + 2]; }
__global__ void k_64_first(int *o) { int i = threadIdx.x; o[0] = f_obj(o[2]) + d64[i] + d16[i + 1]; }
__global__ void k_via_16(int *o) { o[0] = f_16_first(threadIdx.x) + f_obj(o[3]); }
__global__ void k_via_64(int *o) { o[0] = f_64_first(threadIdx.x) + f_obj(o[4]); }
