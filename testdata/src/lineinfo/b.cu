__device__ int twice(int x)
{
    int y = x + x;
    return y;
}
