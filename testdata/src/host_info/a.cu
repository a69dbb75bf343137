// Host code launches some kernels; nvlink keeps only those (and what they reach) unless a
// bare cubin is linked too or -ignore-host-info is given.
#include <cuda_runtime.h>

extern __device__ int b_helper(int);

__global__ void k_launched(int *p) { p[0] = 1; }
__global__ void k_not_launched(int *p) { p[0] = 2; }
template <class T> __global__ void k_tmpl(T *p) { p[0] = T(3); }
static __global__ void k_static(int *p) { p[0] = 4; }

__device__ int dvar_host;
__device__ int dvar_device_only;
__device__ int dvar_host_written;

__global__ void k_calls_b(int *p) { p[0] = b_helper(dvar_host + dvar_host_written + dvar_device_only); }

void launch_some(int *d) {
  k_launched<<<1, 1>>>(d);
  k_tmpl<float><<<1, 1>>>((float *)d);
  k_static<<<1, 1>>>(d);
  int x = 0;
  cudaMemcpyFromSymbol(&x, dvar_host, sizeof x);
  cudaMemcpyToSymbol(dvar_host_written, &x, sizeof x);
}
