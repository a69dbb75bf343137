// A kernel calling a ptxas helper (sqrtf): under -r, the host-only a.o's [.debug_frame] comes
// before the helper's symbol.
__global__ void kern(float *p) { p[threadIdx.x] = sqrtf(p[threadIdx.x]); }
