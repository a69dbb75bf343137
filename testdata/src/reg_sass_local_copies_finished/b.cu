// The second file's copy of __assert_fail (see a.cu).
#include <cassert>
__device__ __noinline__ int b_check(int x) {
  assert(x != 9);
  return x + 4;
}
__global__ void k_b(int *o) { o[1] = b_check(o[1]); }
