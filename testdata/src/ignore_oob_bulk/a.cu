// cp.async.bulk with .ignore_oob (cub's DeviceScanKernel on sm_100+): ptxas records the
// copies' offsets in EIATTR_IGNOREOOB_CP_ASYNC_BULK_INSTR_OFFSETS, which nvlink keeps as it is
// in every mode; a kernel calling the function does not take it on.
__device__ __noinline__ void load_tile(float *dst_smem, const float *src, unsigned bytes,
                                       unsigned long long *bar) {
  unsigned d = (unsigned)__cvta_generic_to_shared(dst_smem);
  unsigned b = (unsigned)__cvta_generic_to_shared(bar);
#if __CUDA_ARCH__ >= 1000
  asm volatile(
      "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes.ignore_oob [%0], [%1], "
      "%2, %3, %4, [%5];" ::"r"(d),
      "l"(src), "r"(bytes), "r"(0u), "r"(4u), "r"(b)
      : "memory");
#else
  dst_smem[threadIdx.x] = src[threadIdx.x];
#endif
}
