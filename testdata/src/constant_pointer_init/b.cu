// A table of such pointers in another file, to this file's and a.cu's constants.
extern __constant__ float c_a[4];
extern __constant__ double c_d[2];
__constant__ int c_i[3] = {7, 8, 9};

struct Tab
{
    const float *f;
    const double *d;
    const int *i;
};
__device__ Tab g_tab = {c_a + 1, c_d, c_i};
