// -preserve-relocs on sm_90: fz_f1's static object, reached by both kernels (k4 directly, k3 through
// the table), stays in .nv_debug.shared; beside b.cu's extern array in use, nvlink then defines
// the array there at the reserved bytes less one (0x3ff), as where a function no kernel calls
// has static objects. cubin-ld defined it only in that case (scripts/fuzz-equiv seed 256).
__device__ int fz_f1(int);
__device__ int fz_f2(int);
__constant__ int (*fz_t16[1])(int) = {fz_f2};
__device__ __noinline__ int fz_f1(int x) {
  { __shared__ float fz_s1[64]; fz_s1[threadIdx.x % 64] = (float)x; __syncthreads(); x += (int)fz_s1[(threadIdx.x + 1) % 64]; }
  return x;
}
__device__ __noinline__ int fz_f2(int x) { x = fz_f1(x); return x; }
__global__ void fz_k3(int *o) { int x = o ? o[threadIdx.x] : 0; x = fz_t16[x & 0](x); if (o) o[threadIdx.x] = x; }
__global__ void fz_k4(int *o) { int x = o ? o[threadIdx.x] : 0; x = fz_f2(x); if (o) o[threadIdx.x] = x; }
