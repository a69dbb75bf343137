// -r sizing of .nv.shared.<kernel> next to 64-aligned extern __shared__ arrays and a device
// function's 128-aligned static object (found by scripts/fuzz-equiv: seeds 10, 13, 16, 19).
// nvlink's partial link adds D bytes (the alignment of its .nv_debug.shared, here 128) to a
// kernel's section whose input bytes are no more than D, gives a kernel that names an array
// an instance at max(align64(static), 64) and a section of align128 of that (2D when <= D),
// gives kernels without static objects that do not name an array no section (D > 16), and
// sizes .nv_debug.shared like a kernel's section. (a.cu comes first: with it second, nvlink
// places the .nv_debug.shared section symbol differently, which cubin-ld does not follow.)
extern __shared__ __align__(64) char dyn64[];
extern __device__ int f_pad(int x);

__device__ __noinline__ int via_callee(int i) { return dyn64[i]; }

__global__ void k_direct(int *o) { dyn64[threadIdx.x] = 1; __syncthreads(); o[0] = dyn64[3]; }
__global__ void k_direct_s200(int *o)
{
    __shared__ char s[200];
    s[threadIdx.x % 200] = 1;
    dyn64[threadIdx.x] = 2;
    __syncthreads();
    o[0] = s[(threadIdx.x + 1) % 200] + dyn64[5];
}
__global__ void k_callee(int *o) { o[0] = via_callee(threadIdx.x) + f_pad(1); }
__global__ void k_unused(int *o) { o[0] = 1; }
__global__ void k_s12(int *o)
{
    __shared__ int s[3];
    s[threadIdx.x % 3] = o[1];
    __syncthreads();
    o[0] = s[(threadIdx.x + 1) % 3];
}
__global__ void k_s150(int *o)
{
    __shared__ char s[150];
    s[threadIdx.x % 150] = o[1];
    __syncthreads();
    o[0] = s[(threadIdx.x + 1) % 150];
}
