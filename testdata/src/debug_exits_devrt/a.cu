// A parent kernel that launches a child (libcudadevrt), compiled -G.
__global__ void child(int *p, int n)
{
    int i = threadIdx.x;
    if (i < n) p[i] += 1;
}

__global__ void parent(int *p, int n)
{
    if (threadIdx.x == 0) child<<<1, 32>>>(p, n);
}
