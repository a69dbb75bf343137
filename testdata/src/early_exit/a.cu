// Kernels that return early (bounds checks): on sm_100 and later nvlink re-schedules such
// kernels when they call nothing (their code then gets the scoreboards whole-program ptxas
// gives it); cubin-ld keeps ptxas's scheduling. The instructions are the same.
extern __device__ int b_twice(int x);

__global__ void ee_scale(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    c[i] = a[i] * b[i] + a[i + 1];
}

__global__ void ee_sum(const int *a, int *c, int n, int m)
{
    int i = threadIdx.x;
    if (i >= n) return;
    int s = 0;
    for (int k = 0; k < m; k++) s += a[i + k * n];
    c[i] = s;
}

// Calls a function in another object: its stack-pointer load is waited on, nothing changes.
__global__ void ee_call(int *p, int n)
{
    if (threadIdx.x >= n) return;
    p[threadIdx.x] = b_twice(p[threadIdx.x]);
}
