// ld ... .unified from inline PTX: relocations against __UDT_OFFSET on every arch.
extern __device__ int b_plain(const int *p);
__device__ __noinline__ int load_unified(const int *p)
{
    int v;
    asm volatile("ld.global.u32 %0, [%1].unified;" : "=r"(v) : "l"(p));
    return v;
}
__global__ void k_ldu(const int *in, int *out) { out[threadIdx.x] = load_unified(in) + b_plain(in); }
