// sm_100+ family rules: b.cu is compiled for a related target (see case.conf) and linked
// with a.cu, which is compiled for the link target.
extern __device__ int fam_b(int);
__global__ void k_fam(int *o) { o[threadIdx.x] = fam_b(o[threadIdx.x + 1]); }
