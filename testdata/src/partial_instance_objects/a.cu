// -r: a kernel whose own code names an extern __shared__ array gets its instance symbol at
// align16(its static objects' sizes added up): here one 12-byte object, 0x10. ptxas makes the
// kernel's input .nv.shared 0x1c (beside a callee's pooled object), which nvlink does not go
// by (cubin-ld did: 0x20).
extern __shared__ float dyn[];
__device__ __noinline__ void stage(const float *in)
{
    __shared__ float4 t[16];
    t[threadIdx.x % 16] = ((const float4 *)in)[threadIdx.x];
    dyn[threadIdx.x + 8] = in[threadIdx.x] + t[3].x;
}
__global__ void k2(const float *in, float *out)
{
    stage(in);
    __syncthreads();
    out[threadIdx.x] = dyn[threadIdx.x];
}
__global__ void k3(const float *in, float *out)
{
    __shared__ int x[3];
    x[threadIdx.x % 3] = 1;
    stage(in);
    __syncthreads();
    out[threadIdx.x] = dyn[threadIdx.x] + x[1];
}
