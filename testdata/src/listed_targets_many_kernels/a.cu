// k_make reaches make, which only stores Disc's vtable: make has no indirect call site, but
// its call graph lists Disc's methods and deleting destructor (which calls free) as indirect
// targets. With other kernels in the link nvlink does not gather their externs:
// k_make's EXTERNS is [malloc] (with k_make alone it would be [free, malloc]).
#include "shape.cuh"
__global__ void k_make(Shape **out) { *out = make(threadIdx.x); }
// A kernel that calls through the vtable (an indirect call site in the link).
__global__ void k_area(Shape **in, float *o) { *o = (*in)->area(); }
