// EXTERNS of a kernel that launches another (found by scripts/fuzz-equiv): the compiler marks
// the launched kernel as a possible target of an indirect call from the parent, but nvlink
// does not give the parent the child's externs (__assertfail); the parent's list is its own
// still-undefined names (malloc, free, the child) in its order, then what its device-runtime
// callees reach, in the order of their .nv.info sections.
#include <cassert>
__global__ void child(int *o)
{
    int x = o ? o[0] : 0;
    assert(x != 92865);
    if (o) o[0] = x;
}
