__device__ __noinline__ unsigned f_ld(unsigned long long p) {
  unsigned r;
  asm volatile("multimem.ld_reduce.relaxed.sys.global.add.u32 %0, [%1];"
               : "=r"(r)
               : "l"(p)
               : "memory");
  return r;
}

__device__ unsigned f_st(unsigned long long p) {
  asm volatile("multimem.st.global.u32 [%0], %1;" ::"l"(p), "r"(7) : "memory");
  return 1;
}

#if __CUDA_ARCH__ >= 1000
__device__ __noinline__ void f_clc(int *o) {
  __shared__ __align__(16) int4 res;
  __shared__ unsigned long long bar;
  unsigned r = (unsigned)__cvta_generic_to_shared(&res);
  unsigned b = (unsigned)__cvta_generic_to_shared(&bar);
  asm volatile("clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::"
               "bytes.b128 [%0], [%1];" ::"r"(r),
               "r"(b)
               : "memory");
  o[1] = res.x;
}
#else
__device__ __noinline__ void f_clc(int *o) { o[1] = 7; }
#endif

// Calls within its own file (not inlined): ptxas gives the kernel the records itself.
__global__ void k_local(int *o, unsigned long long p) {
  f_clc(o);
  o[5] = f_ld(p);
}
