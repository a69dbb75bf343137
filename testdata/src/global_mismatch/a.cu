// The same function declared __global__ here and __device__ in b.cu: nvlink refuses the link
// ("not declared __global__ in all source files").
extern "C" __global__ void g_mixed(int *p) { p[0] = 1; }
