// Reduced from scripts/fuzz-equiv seed 29: the sole kernel reaches malloc/free through a
// callee (fz_f5 → fz_f4) and free through virtual destructors; nvlink lists the callee's names
// first (EXTERNS [malloc, free]).
struct FzBase { __device__ virtual int f(int x) { return x + 1; } __device__ virtual ~FzBase() {} };
struct FzD1 : FzBase { __device__ int f(int x) override { return x * 3; } };
struct FzD2 : FzBase { __device__ int f(int x) override { return x - 5; } __device__ ~FzD2() override {} };
__device__ int fz_f4(int);
__device__ int fz_f5(int);
__device__ __noinline__ int fz_f4(int x) {
  { int *m = (int *)malloc(16); if (m) { m[0] = x; x = m[0] + 1; free(m); } }
  return x;
}
__device__ __noinline__ int fz_f5(int x) {
  x = fz_f4(x);
  return x;
}

