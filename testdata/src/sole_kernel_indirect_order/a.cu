// The only kernel of a link, calling through a table of f3 (malloc, free) and dead11
// (assert): its new EXTERNS record gathers the targets' externs in the order of their .nv.info
// sections (dead11's first here, as its symbol), [__assertfail, malloc, free] (fuzz-equiv).
#include <cassert>
__device__ int f3(int);
__global__ void k4(int *);
__device__ int dead11(int);
__device__ int (*t21[2])(int) = {f3, dead11};
__device__ __noinline__ int f3(int x) {
  { int *m = (int *)malloc(16); if (m) { m[0] = x; x = m[0] + 1; free(m); } }
  return x;
}
__global__ void k4(int *o) {
  int x = o ? o[threadIdx.x] : 0;
  x = t21[x & 1](x);
  if (o) o[threadIdx.x] = x;
}
__device__ __noinline__ int dead11(int x) {
  assert(x != 38920);
  return x;
}
