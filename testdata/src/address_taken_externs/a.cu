// With two kernels, neither gets the names an address-taken function reaches (compare
// sole_kernel_externs).
#include <cassert>
__device__ int table_entry(int);
__device__ int (*table[1])(int) = {table_entry};
__global__ void k_one(int *o) { int x = o ? o[threadIdx.x] : 0; if (o) o[threadIdx.x] = x; }
__global__ void k_two(int *o) { o[0] = 3; }
__device__ __noinline__ int table_entry(int x) { assert(x != 38920); return x; }
