// Link-time optimization (-dlto): the kernel host code launches calls a function and reads a
// constant of b.cu, which LTO inlines and folds across the files.
#include <cstdio>
extern __device__ float scale(float x);
extern __constant__ float coef[4];
void launch_print(float *p);

__global__ void k_main(float *out, const float *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = scale(in[i]) + coef[i & 3];
}

int main()
{
    float *d;
    cudaMalloc(&d, 1024);
    k_main<<<1, 32>>>(d, d, 32);
    launch_print(d);
    cudaDeviceSynchronize();
    return 0;
}
