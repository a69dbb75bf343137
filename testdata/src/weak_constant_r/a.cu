#include "tab.cuh"
__global__ void kx(double *o) { o[0] = table[3]; }
