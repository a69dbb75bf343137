// The kernel's callee fz_f9 lists fz_f5 and malloc and deletes through a virtual destructor.
struct FzBase { __device__ virtual int f(int x) { return x + 1; } __device__ virtual ~FzBase() {} };
struct FzD1 : FzBase { __device__ int f(int x) override { return x * 3; } };
struct FzD2 : FzBase { __device__ int f(int x) override { return x - 5; } __device__ ~FzD2() override {} };
__device__ int fz_f5(int);
__device__ int fz_f9(int);
__global__ void fz_k11(int *);
__device__ __noinline__ int fz_f9(int x) {
  x = fz_f5(x);
  { FzBase *b = (x & 1) ? (FzBase *)new FzD1() : (FzBase *)new FzD2(); if (b) { x = b->f(x); delete b; } }
  return x;
}
__global__ void fz_k11(int *o) {
  int x = o ? o[threadIdx.x] : 0;
  x = fz_f9(x);
  if (o) o[threadIdx.x] = x;
}

