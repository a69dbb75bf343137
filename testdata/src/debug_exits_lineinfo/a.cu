// Kernels whose exits nvlink -g gives the debugger's barriers (sm_100+).
__device__ __noinline__ void stop_if(int *o, int n)
{
    if (n > 3) asm volatile("exit;");   // an EXIT outside a kernel
    o[1] = n;
}

__global__ void k_early(float *o, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;                  // @P0 EXIT
    float s = 0;
    for (int j = 0; j < n; j++) s += o[j] * j;
    o[i] = s;
}

__global__ void k_fence(int *o)
{
    o[threadIdx.x] = 1;
    __threadfence();
    o[threadIdx.x + 32] = 2;
}

__global__ void k_trap(int *o, int n)
{
    if (n < 0) __trap();
    o[0] = n;
}

__global__ void k_preds(const int *a, int *o, int n)
{
    bool p1 = a[0] > n, p2 = a[1] < n, p3 = a[2] == n, p4 = a[3] != 0;
    int t = threadIdx.x;
    if (p1 && t == 3) return;            // @P1 EXIT P0 and the like
    o[0] = p2;
    if (p2 && !p3) return;
    o[1] = p3 + p4;
    if (p3 || p4) return;
    o[2] = p1;
}

__global__ void k_sel(const int *a, int *o)
{
    int t = threadIdx.x, v = a[t];
    bool q[6];
    for (int j = 0; j < 6; j++) q[j] = a[t + j + 1] > v;
    if (q[0]) o[t] = 1;
    if (q[1] && !q[0]) return;
    if (q[2]) o[t + 1] = q[3] ? 2 : 3;
    if (!q[4] && q[5]) return;
    o[t + 2] = q[3] + q[4];
}

__global__ void k_div(int *o, int n)
{
    int t = threadIdx.x;
    if (t < n) {
        if (o[t] > 0) o[t] = 1; else o[t] = -1;
    }
    __syncthreads();
    if (t == 0) o[n] = 0;
}

__global__ void k_calls(int *o, int n)
{
    stop_if(o, n);
    o[0] = n;
}
