// printf (vprintf, which ptxas provides: the program is still complete) and a kernel its
// own host code launches.
#include <cstdio>

__global__ void k_print(const float *p) { printf("%f\n", p[threadIdx.x]); }

void launch_print(float *p) { k_print<<<1, 1>>>(p); }
