// A kernel that itself calls malloc and free and deletes objects through virtual destructors
// (which call free): nvlink keeps the kernel's own EXTERNS record in its own order
// [malloc, free]; a name reached only through the indirect calls comes first (virtual: the
// kernel lists only malloc, and gets [free, malloc]) (found by scripts/fuzz-equiv).
struct Base { __device__ virtual int f(int x) { return x + 1; } __device__ virtual ~Base() {} };
struct D1 : Base { __device__ int f(int x) override { return x * 3; } };
struct D2 : Base { __device__ int f(int x) override { return x - 5; } __device__ ~D2() override {} };
__global__ void k_own(int *o)
{
    int x = o ? o[threadIdx.x] : 0;
    { int *m = (int *)malloc(16); if (m) { m[0] = x; x = m[0] + 1; free(m); } }
    { Base *b = (x & 1) ? (Base *)new D1() : (Base *)new D2(); if (b) { x = b->f(x); delete b; } }
    if (o) o[threadIdx.x] = x;
}
