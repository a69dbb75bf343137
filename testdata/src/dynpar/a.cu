// Dynamic parallelism: a parent kernel launches a child kernel defined in another TU.
__global__ void child(int *p, int n);
__global__ void parent(int *p, int n)
{
    if (threadIdx.x == 0) child<<<1, n>>>(p, n);
}
