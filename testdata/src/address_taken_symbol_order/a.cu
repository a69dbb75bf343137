// nvlink lists each object's address-taken functions in the order of the object's symbol
// table (its local functions first), not in the order the compiler wrote the call-graph
// entries (here s2, g1, g2, s1). A final link of nvlink's own -r output moves a launched
// kernel (global) after the device runtime's static functions the same way (found by
// scripts/fuzz-equiv). An undefined reference counts: pp, which only c.cu's table takes, is
// listed where a.cu's reference first names it, before c.cu's hh.
typedef int (*fp)(int);
__device__ int g1(int x) { return x + 1; }
static __device__ int s1(int x) { return x * 3; }
__device__ int g2(int x) { return x - 7; }
static __device__ int s2(int x) { return x ^ 5; }
__device__ fp tab[4] = {g1, s1, g2, s2};
__device__ int pp(int);
__global__ void k(int *o) { o[0] = tab[o[1]](o[2]) + pp(o[3]); }
