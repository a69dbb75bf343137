// A dead copy: only a function no kernel calls divides floats, so the executable link
// removes this file's float helper (-r and -preserve-relocs keep it); the double helper lives.
__device__ __noinline__ float never_called_div(float x, float y) { return x / y; }
__global__ void kc(double *d) { d[0] = d[1] / d[2] + 2; }
