// -G code of two files that assert: each holds its own local copy of __assert_fail, so a
// partial link's output has two functions of that name and two .nv_debug_info_reg_sass
// records named so (the second's ranges cleared). Finishing it, nvlink clears the removed
// copy's record alone, the k-th record of a name going with the k-th function of it.
#include <cassert>
__device__ __noinline__ int a_check(int x) {
  assert(x != 7);
  return x * 3;
}
__global__ void k_a(int *o) { o[0] = a_check(o[0]); }
