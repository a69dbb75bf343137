// Static __shared__ layout order: objects several kernels reach come first (largest first),
// then each kernel's own objects (those only it reaches, its callees' included) by alignment
// (largest first), then size (smallest first), the kernel's own code first on ties; two
// kernels' own objects may overlap.
extern __device__ float h_both(float x);
extern __device__ float h_k1(float x);

__global__ void k1(float *o)
{
    __shared__ float k1_f[64];   // align 4, 0x100
    __shared__ char k1_c[16];    // align 1, 0x10
    __shared__ double k1_d[8];   // align 8, 0x40
    int i = threadIdx.x;
    k1_f[i % 64] = o[0];
    k1_c[i % 16] = 1;
    k1_d[i % 8] = 2;
    __syncthreads();
    o[i] = k1_f[1] + k1_c[2] + k1_d[3] + h_both(o[1]) + h_k1(o[2]);
}

__global__ void k2(float *o)
{
    __shared__ int k2_i[8];      // align 4, 0x20
    k2_i[threadIdx.x % 8] = 3;
    __syncthreads();
    o[threadIdx.x] = k2_i[1] + h_both(o[1]);
}
