// -lineinfo across two files: a kernel and the function it calls.
extern __device__ int twice(int x);

__global__ void k_lines(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = twice(out[i]) + 1;
}
