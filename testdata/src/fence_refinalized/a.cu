// sm_100+: nvlink re-finalizes kernels that call nothing, and the finalizer then drops what
// ptxas writes before a fence for code that might call out: four `@!PT LDS RZ, [RZ]` and the
// `MEMBAR.ALL.CTA` before a GPU- or system-scope MEMBAR (only the loads before a CTA-scope
// one). Every later offset moves (branches, EXIT/COOP_GROUP/INT_WARP_WIDE offsets,
// relocations, the frame, the capsule's fence prefixes and closing token). Kernels that call
// (a device function, __assertfail) keep ptxas's code, as do the functions themselves.
#include <cassert>
#include <cooperative_groups.h>
#include <cuda/atomic>
namespace cg = cooperative_groups;

__device__ unsigned cnt;
extern __device__ int helper(int *p, int i); // b.cu: a function with a fence of its own

extern "C" __global__ void tf_gpu(int *p, int n) { int i = threadIdx.x; if (i >= n) return; p[i] = i; __threadfence(); atomicAdd(&cnt, 1); }
extern "C" __global__ void tf_block(int *p, int n) { int i = threadIdx.x; if (i >= n) return; p[i] = i; __threadfence_block(); atomicAdd(&cnt, 1); }
extern "C" __global__ void tf_sys(int *p, int n) { int i = threadIdx.x; if (i >= n) return; p[i] = i; __threadfence_system(); atomicAdd(&cnt, 1); }
extern "C" __global__ void tf_shared(int *p, int n) { __shared__ int s[64]; int i = threadIdx.x; if (i >= n) return; s[i & 63] = i; __threadfence(); p[i] = s[(i + 1) & 63]; }
extern "C" __global__ void tf_noexit(int *p) { int i = threadIdx.x; p[i] = i; __threadfence(); atomicAdd(&cnt, 1); }
extern "C" __global__ void grid_sync(int *p, int n) { int i = threadIdx.x; if (i >= n) return; p[i] = i; cg::this_grid().sync(); p[i + 1] += 1; }
extern "C" __global__ void atomic_seq_cst(int *p, int n) { int i = threadIdx.x; if (i >= n) return; cuda::atomic_ref<int, cuda::thread_scope_device> a(p[0]); a.fetch_add(1, cuda::std::memory_order_seq_cst); }
extern "C" __global__ void store_release(int *p, int n) { int i = threadIdx.x; if (i >= n) return; p[i + 1] = 2; cuda::atomic_ref<int, cuda::thread_scope_device> a(p[0]); a.store(1, cuda::std::memory_order_release); }
extern "C" __global__ void fence_acq_rel(int *p, int n) { int i = threadIdx.x; if (i >= n) return; p[i + 1] = 2; cuda::atomic_thread_fence(cuda::std::memory_order_acq_rel, cuda::thread_scope_device); p[0] = 1; }
extern "C" __global__ void fence_cluster(int *p, int n) { int i = threadIdx.x; if (i >= n) return; p[i + 1] = 2; asm volatile("fence.acq_rel.cluster;"); p[0] = 1; }
extern "C" __global__ void fence_loop(int *p, int n) { for (int i = threadIdx.x; i < n; i += 32) { p[i] = i; __threadfence(); } }
extern "C" __global__ void two_fences(int *p, int n) { int i = threadIdx.x; if (i >= n) return; p[i] = i; __threadfence(); p[i + 1] = 3; __threadfence_system(); atomicAdd(&cnt, 1); }
extern "C" __global__ void fence_local(int *p, int n) { int t[64]; int i = threadIdx.x; if (i >= n) return; for (int j = 0; j < 64; j++) t[j] = p[j * i]; p[i] = t[p[i] & 63]; __threadfence(); atomicAdd(&cnt, t[i & 63]); }
extern "C" __global__ void fence_divergent(int *p, int n) { int i = threadIdx.x; if (i & 1) { p[i] = i; __threadfence(); } else { p[i] = -i; } if (i < n) atomicAdd(&cnt, p[i]); }
extern "C" __global__ void fence_then_call(int *p, int n) { int i = threadIdx.x; if (i >= n) return; p[i] = i; __threadfence(); p[i + 2] = helper(p, i); }
extern "C" __global__ void fence_then_assert(int *p, int n) { int i = threadIdx.x; if (i >= n) return; p[i] = i; __threadfence(); assert(p[i + 1] != 7); }
// A CTA-scope acquire-release fence keeps its MEMBAR.ALL.CTA (only the loads go), as do the
// async-proxy fences cub's decoupled look-back uses; fence.proxy.async widens to the GPU.
extern "C" __global__ void acq_rel_cta(int *p, int n) { int i = threadIdx.x; if (i >= n) return; p[i] = i; asm volatile("fence.acq_rel.cta;" ::: "memory"); p[i + 1] = 3; }
extern "C" __global__ void sc_cta(int *p, int n) { int i = threadIdx.x; if (i >= n) return; p[i] = i; asm volatile("fence.sc.cta;" ::: "memory"); p[i + 1] = 3; }
extern "C" __global__ void proxy_async_shared(int *p, int n) { __shared__ int s[64]; int i = threadIdx.x; if (i >= n) return; s[i & 63] = i; asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); p[i] = s[(i + 3) & 63]; }
extern "C" __global__ void proxy_async(int *p, int n) { int i = threadIdx.x; if (i >= n) return; p[i] = i; asm volatile("fence.proxy.async;" ::: "memory"); atomicAdd(&cnt, 1); }
