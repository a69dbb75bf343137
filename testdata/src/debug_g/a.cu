// -G debug build of a cross-TU call: .debug_* sections and their relocations.
extern __device__ int b_add(int x, int y);
extern __device__ float c_scale(float v);

__device__ __noinline__ int a_local(int x) { return x * 3 + 1; }

__global__ void k_xtu(int *out, float *fout, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = b_add(a_local(i), out[i]);
        fout[i] = c_scale(fout[i]);
    }
}
