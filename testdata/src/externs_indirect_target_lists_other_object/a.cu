#include <cstdio>
// The table of functions an indirect call in b.cu goes through, holding a function of
// another object (f_print): ptxas lists it in the EXTERNS record of this object's function.
__device__ int f_print(int);
__device__ __noinline__ int f_local(int x) { return x * 5 + 1; }
__constant__ int (*table[2])(int) = {f_print, f_local};
__global__ void k_a(int *o) { int x = f_local(o[0]); printf("a %d\n", x); }
