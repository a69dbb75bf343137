// Kernels host code never launches, kept by -preserve-relocs in a host link: nvlink neither
// raises their register counts to their callees' nor gives them a MIN_STACK_SIZE (as for
// kernels -kernels-used does not name), but keeps their .nv.info sections in the kernels'
// places.
#include <cuda_runtime.h>

__device__ float heavy(const float *o, int n);

__global__ void k_launched(float *o) { o[threadIdx.x] = heavy(o, 3); }
__global__ void k_never(float *o, int n) { o[0] = heavy(o, n); }
__global__ void k_never_plain(float *o) { o[1] = 2; }

int main() {
  float *o;
  cudaMalloc(&o, 64);
  k_launched<<<1, 1>>>(o);
  cudaDeviceSynchronize();
  return 0;
}
