// The kernel reading through the pointers.
struct Tab
{
    const float *f;
    const double *d;
    const int *i;
};
extern __device__ const float *g_p;
extern __device__ const float *g_q;
extern __device__ Tab g_tab;

__global__ void k(float *o)
{
    int t = threadIdx.x & 1;
    o[threadIdx.x] = g_p[t] + g_q[0] + g_tab.f[t] + (float)g_tab.d[t] + (float)g_tab.i[t];
}
