// A kernel's shared memory covers what its callees' calls through pointers may reach: k's
// callee calls through a table holding b.cu's f8, whose static __shared__ float nvlink places
// in k's .nv.shared below k's own 16-aligned array (found by scripts/fuzz-equiv).
__device__ int f3(int);
__global__ void k5(int *);
extern __constant__ int (*t19[1])(int);
__device__ __noinline__ int f3(int x) {
  x = t19[x & 3](x);
  return x;
}
__global__ void k5(int *o) {
  int x = o ? o[threadIdx.x] : 0;
  x = f3(x);
  { __shared__ __align__(16) short s1[1]; s1[threadIdx.x % 1] = (short)x; __syncthreads(); x += (int)s1[(threadIdx.x + 1) % 1]; }
  if (o) o[threadIdx.x] = x;
}
