// A kernel whose only shared memory is an extern array aligned 128. nvlink's -r gives it a
// .nv.shared.<kernel> with no object in it, twice the arrays' alignment (0x100); finishing
// that partial link, nvlink keeps the whole area and puts the array after it (0x100), where
// a one-step link puts it at 0.
extern __shared__ __align__(128) char dyn[];
extern __device__ int scale(int x);

__global__ void k(int *o)
{
    int x = o[threadIdx.x];
    dyn[threadIdx.x] = (char)x;
    __syncthreads();
    o[threadIdx.x] = scale(x + dyn[0]);
}
