// A kernel's literal bank (.nv.constant2.<kernel>) built from pieces of alignment 8 and 4
// (its own doubles, scale's doubles, pick's 13-entry jump table last): it ends at its
// alignment, 0x48 where the last piece ends at 0x44 (sm_75-sm_89).
__device__ __noinline__ int pick(int s, int x) {
  switch (s) {
    case 0: return x + 3;  case 1: return x * 7;  case 2: return x - 11;
    case 3: return x ^ 5;  case 4: return x << 2; case 5: return x >> 1;
    case 6: return x | 9;  case 7: return x & 6;  case 8: return x * x;
    case 9: return x - 100;
  }
  return 0;
}
__device__ __noinline__ double scale(double v) { return v * 1.000000123 + 2.718281828459045; }
__global__ void k(double *out, const int *sel, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = scale(out[i] * 3.14159265358979) + pick(sel[i], i);
}
