// A function's literal bank that a kernel of each object reaches, where this object names
// b.cu's kernel (its address, in a device function) before its own: the output's symbols
// list k_late before k_early, and nvlink makes the kernels' .nv.constant2.<kernel> banks in
// the reverse of that order (k_early, then k_late), not of the objects' (scripts/fuzz-equiv
// seed 191).
__device__ int lit(int);
__global__ void k_late(int *o);
__global__ void k_early(int *o);
__device__ void *kernel_address;
__device__ __noinline__ void note_late() { kernel_address = (void *)k_late; }
__global__ void k_early(int *o) { o[0] = lit(o[1]); note_late(); }
