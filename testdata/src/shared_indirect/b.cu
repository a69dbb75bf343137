__device__ int f8(int);
__constant__ int (*t19[1])(int) = {f8};
__device__ __noinline__ int f8(int x) {
  { __shared__ float s2[1]; s2[threadIdx.x % 1] = (float)x; __syncthreads(); x += (int)s2[(threadIdx.x + 1) % 1]; }
  return x;
}
