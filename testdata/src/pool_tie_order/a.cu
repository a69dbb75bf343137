// Static __shared__ objects of one size that several kernels reach (nvlink's pool): nvlink
// sorts them largest first with a merge sort that is not stable, from the inputs' order (by
// file, then symbol table, where ptxas lists locals before globals), so objects of one size
// come in an order of its own: here a.cu's file-scope array before the callee's, though the
// callee's is listed first.
extern __device__ void b_use(double *p);

__device__ __noinline__ void fw0(double *p)
{
    __shared__ double s[2];
    s[threadIdx.x & 1] = p[threadIdx.x];
    __syncthreads();
    p[threadIdx.x] = s[1 - (threadIdx.x & 1)];
}

__shared__ int fa[4];

__global__ void k1(double *p)
{
    fw0(p);
    fa[threadIdx.x & 3] = 1;
    __syncthreads();
    p[2] = fa[1];
}

__global__ void k2(double *p)
{
    fw0(p);
    fa[threadIdx.x & 3] = 2;
    __syncthreads();
    p[2] = fa[2];
    b_use(p);
}
