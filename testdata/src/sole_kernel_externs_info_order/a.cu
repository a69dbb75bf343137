// -G -preserve-relocs: the only kernel names none of the names it reaches itself (assert's
// __assertfail comes through the __assert_fail function -G keeps), and a function no kernel
// calls reaches malloc and free. nvlink's EXTERNS for the kernel lists the kept functions'
// names in .nv.info order, the dead function's first: [malloc, free, __assertfail]; cubin-ld
// put the kernel's callees' first (scripts/fuzz-equiv seed 224).
#include <cassert>
__device__ __noinline__ int uses_heap(int x)
{
    int *m = (int *)malloc(16);
    if (m) {
        m[0] = x;
        x = m[0] + 1;
        free(m);
    }
    return x;
}
__global__ void k_assert(int *o)
{
    int x = o ? o[threadIdx.x] : 0;
    assert(x != 61909);
    if (o) o[threadIdx.x] = x;
}
