// Error case: b.cu is compiled for a different SM than the link target (see case.conf).
extern __device__ int mm_b(int);
__global__ void k_mm(int *o) { o[0] = mm_b(o[1]); }
