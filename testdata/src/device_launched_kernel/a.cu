// A kernel host code never launches but another kernel's code launches (dynamic
// parallelism) is one of the link's kernels: in a host link nvlink raises its registers to
// its callees' and gives it a MIN_STACK_SIZE, as for the kernels host code launches, and it
// keeps its own literal bank.
#include <cuda_runtime.h>

__global__ void k_child(float *o, int n);

__global__ void k_parent(float *o, int n) {
  if (threadIdx.x == 0) k_child<<<1, 32>>>(o, n);
}

int main() {
  float *o;
  cudaMalloc(&o, 256);
  k_parent<<<1, 1>>>(o, 3);
  cudaDeviceSynchronize();
  return 0;
}
