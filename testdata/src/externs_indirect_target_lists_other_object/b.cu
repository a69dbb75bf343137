#include <cstdio>
// A kernel among several whose callees bring a barrier count (f_sync) and an EXTERNS
// (f_print), and whose indirect call reaches a.cu's function: nvlink meets a.cu's EXTERNS
// record first, so the kernel's EXTERNS comes before its NUM_BARRIERS.
extern __constant__ int (*table[2])(int);
__device__ __noinline__ int f_sync(int x) {
  __shared__ int s[32];
  s[threadIdx.x % 32] = x;
  __syncthreads();
  return s[(threadIdx.x + 1) % 32];
}
__device__ __noinline__ int f_print(int x) { printf("x %d\n", x); return x; }
__global__ void k_calls(int *o) {
  int x = o[threadIdx.x];
  x = f_print(x);
  x = table[x & 1](x);
  x = f_sync(x);
  o[threadIdx.x] = x;
}
__global__ void k_other(int *o) { o[0] = 1; }
