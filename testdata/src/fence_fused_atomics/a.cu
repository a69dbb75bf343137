// Fences ptxas fuses into an atomic (libcu++'s atomic_ref with acquire/release orders): on
// sm_100+ the fence's barriers come before the ATOM, whose capsule record announces them, and
// nvlink's re-finalization drops the dummy loads and the CTA barrier as for a fence.
#include <cuda/atomic>

__global__ void claim_slots(const float *in, int n, float threshold, int *cursor, int *slots) {
  cuda::atomic_ref<int, cuda::thread_scope_device> c(*cursor);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    if (in[i] > threshold) slots[c.fetch_add(1, cuda::memory_order_acq_rel)] = i;
}

__global__ void release_flag(int *data, int *flag, int v) {
  data[threadIdx.x] = v;
  cuda::atomic_ref<int, cuda::thread_scope_device> f(*flag);
  if (threadIdx.x == 0) f.fetch_add(1, cuda::memory_order_release);
}

__global__ void acquire_flag(const int *data, int *flag, int *out) {
  cuda::atomic_ref<int, cuda::thread_scope_device> f(*flag);
  int seen = f.fetch_or(0, cuda::memory_order_acquire);
  out[threadIdx.x] = seen ? data[threadIdx.x] : -1;
}

__global__ void system_max(unsigned long long *m, const unsigned long long *v, int n) {
  cuda::atomic_ref<unsigned long long, cuda::thread_scope_system> a(*m);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a.fetch_max(v[i], cuda::memory_order_seq_cst);
}

__global__ void block_exchange(int *slot, int v, int *old) {
  cuda::atomic_ref<int, cuda::thread_scope_block> s(*slot);
  old[threadIdx.x] = s.exchange(v + threadIdx.x, cuda::memory_order_acq_rel);
}
