__device__ int f9(int);
__global__ void k_b(int *o)
{
    int x = o ? o[threadIdx.x] : 0;
    x = f9(x);
    if (o) o[threadIdx.x] = x;
}
