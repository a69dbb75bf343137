__device__ __noinline__ int tex_reader(int x) {
  return x + tex1Dfetch<int>((cudaTextureObject_t)(unsigned)x, x & 7);
}
__global__ void k_other(int *o) { o[0] = 2; }
