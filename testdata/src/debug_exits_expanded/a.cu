// Kernels whose code the finalizer expanded, under -g (sm_100+): the barriers nvlink puts
// before each exit land where the capsule's numbering of the expanded code says.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
namespace cg = cooperative_groups;

// cg::memcpy_async + a double atomicAdd: the exit comes before an out-of-line
// WARPSYNC.COLLECTIVE slow path the finalizer added.
__global__ void copy_sum(const double *in, double *out, int n) {
  extern __shared__ double dyn[];
  auto block = cg::this_thread_block();
  cg::memcpy_async(block, dyn, in + blockIdx.x * n, sizeof(double) * n);
  cg::wait(block);
  double acc = 0.0;
  for (int i = threadIdx.x; i < n; i += blockDim.x) acc += dyn[i] * dyn[(i + 1) % n];
  atomicAdd(out, acc);
}

// Loads of which only some bytes are used: EIATTR_UNUSED_LOAD_BYTE_OFFSET names the load,
// which moves down with the code after an early exit.
__global__ void some_bytes(const uchar4 *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uchar4 v = in[i];
  out[i] = v.x + v.z;
}

__global__ void some_lanes(const float4 *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 v = __ldg(in + i);
  out[i] = v.x * v.w;
}
