// Finishing a partial link, nvlink names the data sections in the order of their first
// variables' symbols: the -r output lists .nv.global, .nv.constant3, then b.cu's
// .nv.global.init, but g_init (named first by a.cu's reference) comes before p, so the final
// link has .nv.global, .nv.global.init, .nv.constant3 (found by scripts/fuzz-equiv).
extern __device__ int g_init;
__device__ int g_bss;
__constant__ int *p = &g_init;
__global__ void k_a(int *o)
{
    int x = o ? o[threadIdx.x] : 0;
    x += *p;
    g_bss = x;
    if (o) o[threadIdx.x] = x;
}
