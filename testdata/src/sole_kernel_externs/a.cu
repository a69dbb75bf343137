// The only kernel of a link gets, after its own EXTERNS, the names every address-taken
// function reaches (here __assertfail from table_entry), in a new record at the end, though
// it calls nothing through a pointer; address_taken_externs shows that with two kernels
// neither gets them (found by scripts/fuzz-equiv).
#include <cassert>
#include <cstdio>
__device__ int table_entry(int);
__device__ int (*table[1])(int) = {table_entry};
__global__ void k_only(int *o)
{
    int x = o ? o[threadIdx.x] : 0;
    printf("%d", x);
    if (o) o[threadIdx.x] = x;
}
__device__ __noinline__ int table_entry(int x) { assert(x != 38920); return x; }
