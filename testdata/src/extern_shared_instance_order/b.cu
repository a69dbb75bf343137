__global__ void k_c(int *);
extern __shared__ double dyn_b[];
__global__ void k_b(int *o)
{
    dyn_b[threadIdx.x] = o[0];
    __syncthreads();
    int x = (int)dyn_b[2];
    if (x == 90) k_c<<<1, 1>>>((int *)0);
    o[1] = x;
}
