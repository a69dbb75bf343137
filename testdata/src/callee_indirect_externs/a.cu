// A kernel whose callee (f7) calls through a pointer that may reach malloc and free (f9):
// nvlink updates the kernel's own EXTERNS record in place (only the sole kernel of a link
// gets a new record at the end for what indirect calls reach: virtual, virtual_among_kernels)
// (found by scripts/fuzz-equiv).
__device__ int f7(int);
__device__ int f8(int);
__device__ __noinline__ int f1(int x) { return f7(x); }
__global__ void k_a(int *o)
{
    int x = o ? o[threadIdx.x] : 0;
    x = f1(x);
    x = f8(x);
    if (o) o[threadIdx.x] = x;
}
