// The only kernel of a link whose callees reach names it does not list itself (malloc and
// free, through helper in b.cu) gets its EXTERNS as a new record at the end, its own record
// (naming helper, which the link defines) gone; a kernel among others keeps the record in
// place, and so does a sole kernel whose callees add nothing (found by scripts/fuzz-equiv).
__device__ int helper(int *p);
__device__ __noinline__ int local_h(int *p) { return p[3] * 7; }
__global__ void k_sole(int *p) { p[1] = helper(p) + local_h(p); }
