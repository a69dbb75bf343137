// (see uncallable_table) heavy is in a table; b.cu calls through an int(int) pointer.
__device__ __noinline__ int heavy(int x)
{
    double a[8];
    for (int i = 0; i < 8; i++) a[i] = x * 1.5 + i;
    double s = 0;
    for (int i = 0; i < 8; i++) s += a[i] * a[(i * 3) % 8] / (a[(i + 1) % 8] + 1.0);
    return (int)s;
}
__device__ int (*heavy_table[1])(int) = {heavy};
__global__ void k_plain(int *o) { o[0] = 1; }
// A call through a pointer of another prototype does not make heavy callable.
__device__ __noinline__ double twice(double x) { return x * 2; }
__device__ double (*double_table[1])(double) = {twice};
__global__ void k_double(double *o) { o[0] = double_table[0](o[1]); }
