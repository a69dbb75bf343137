// Two kernels whose only shared memory is an extern array, aligned 64 here and 32 in b.cu.
// nvlink's -r gives each a .nv.shared.<kernel> with no object in it (0x80: twice the largest
// alignment); finishing that partial link, nvlink keeps both areas whole and puts each
// kernel's array after its area (0x80).
extern __shared__ __align__(64) int dyn_a[];

__global__ void k_a(int *o)
{
    dyn_a[threadIdx.x] = o[threadIdx.x];
    __syncthreads();
    o[threadIdx.x] = dyn_a[0] + 1;
}
