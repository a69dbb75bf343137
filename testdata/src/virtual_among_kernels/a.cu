// A kernel among others that deletes objects through virtual destructors (which call free):
// nvlink adds what the indirect calls reach to the kernel's own EXTERNS record, after its own
// names, in place ([malloc, free]); the only kernel of a link gets a new record at the end
// with those names first (virtual: [free, malloc]) (found by scripts/fuzz-equiv).
struct Base { __device__ virtual int f(int x) { return x + 1; } __device__ virtual ~Base() {} };
struct D1 : Base { __device__ int f(int x) override { return x * 3; } };
struct D2 : Base { __device__ int f(int x) override { return x - 5; } __device__ ~D2() override {} };
__global__ void k_plain(int *o)
{
    int x = o ? o[threadIdx.x] : 0;
    if (o) o[threadIdx.x] = x;
}
__global__ void k_virtual(int *o)
{
    int x = o ? o[threadIdx.x] : 0;
    { Base *b = (x & 1) ? (Base *)new D1() : (Base *)new D2(); if (b) { x = b->f(x); delete b; } }
    if (o) o[threadIdx.x] = x;
}
