__global__ void child(int *o);
__global__ void parent(int *o)
{
    int x = o ? o[threadIdx.x] : 0;
    int *m = (int *)malloc(16);
    if (m) { m[0] = x; x = m[0] + 1; free(m); }
    if (x == 38) child<<<1, 1>>>((int *)0);
    if (o) o[threadIdx.x] = x;
}
