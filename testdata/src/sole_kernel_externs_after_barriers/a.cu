#include <cstdio>
// The only kernel of a link: nvlink writes the EXTERNS it adds after the barrier count its
// callees bring, whatever the order of the calls or of the callees' .nv.info sections
// (with a second kernel, it follows those sections: externs_indirect_target_lists_other_object).
// Under -preserve-relocs, which keeps f_dead, the kernel's EXTERNS also lists what f_dead
// calls (malloc, free), though nothing calls f_dead.
__device__ __noinline__ int f_print(int x) { printf("x %d\n", x); return x; }
__device__ __noinline__ int f_sync(int x) {
  __shared__ int s[32];
  s[threadIdx.x % 32] = x;
  __syncthreads();
  return s[(threadIdx.x + 1) % 32];
}
__device__ __noinline__ int f_dead(int x) {
  int *m = (int *)malloc(16);
  if (m) { m[0] = x; x = m[0] + 1; free(m); }
  return x;
}
__global__ void k_only(int *o) {
  int x = o[threadIdx.x];
  x = f_sync(x);
  x = f_print(x);
  o[threadIdx.x] = x;
}
