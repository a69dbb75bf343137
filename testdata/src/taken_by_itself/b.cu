// A kernel calling through a table that names a.cu's identity (int(int), as calls_itself).
__device__ int identity(int);
__constant__ int (*table[1])(int) = {identity};
__global__ void k_table(int *o)
{
    int x = o ? o[threadIdx.x] : 0;
    x = table[x & 0](x);
    if (o) o[threadIdx.x] = x;
}
