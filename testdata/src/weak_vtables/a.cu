// Virtual tables every file defines (weak data in .nv.global.init): the link keeps one
// copy's symbols; the discarded copies' bytes stay, but nvlink leaves their function
// addresses unrelocated (found by scripts/fuzz-equiv).
struct Base { __device__ virtual int f(int x) { return x + 1; } __device__ virtual ~Base() {} };
struct D1 : Base { __device__ int f(int x) override { return x * 3; } };
struct D2 : Base { __device__ int f(int x) override { return x - 5; } __device__ ~D2() override {} };
__global__ void k_a(int *o)
{
    D1 d1;
    D2 d2;
    Base *volatile b = (o[0] & 1) ? (Base *)&d1 : (Base *)&d2;
    o[1] = b->f(o[2]);
}
