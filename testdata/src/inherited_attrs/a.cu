// Kernels take on records of the functions they call in other files: GRID_ATTRIBUTES
// (multimem loads 0x4, stores 0xc: or'ed, the kernel's own raised), and on sm_100+
// CLUSTER_LAUNCH_CONTROL_USED (clusterlaunchcontrol.try_cancel). nvlink adds them after
// the kernel's own records, in the order of the callees' code in the inputs (not of the
// calls).
__device__ unsigned f_ld(unsigned long long p);
__device__ unsigned f_st(unsigned long long p);
__device__ void f_clc(int *o);

__global__ void k_ld_st(int *o, unsigned long long p) {
  o[0] = f_ld(p);
  o[1] = f_st(p);
}

__global__ void k_clc_then_st(int *o, unsigned long long p) {
  f_clc(o);
  o[2] = f_st(p);
}

// (Calls in the other order: nvlink still lists CLUSTER_LAUNCH_CONTROL_USED first, as
// f_clc's code comes before f_st's in b.o.)
__global__ void k_st_then_clc(int *o, unsigned long long p) {
  o[2] = f_st(p);
  f_clc(o);
}

__global__ void k_own_ld_calls_st(int *o, unsigned long long p) {
  unsigned r;
  asm volatile("multimem.ld_reduce.relaxed.sys.global.add.u32 %0, [%1];"
               : "=r"(r)
               : "l"(p)
               : "memory");
  o[3] = r + f_st(p);
}

__global__ void k_plain(int *o) { o[4] = 4; }
