// __constant__ data holding addresses: the bank's relocations (.rela.nv.constant3) and, on
// sm_100+, their Mercury twin, which keeps the bank's Mercury name
// (.nv.merc.rela.nv.constant.user; found by scripts/fuzz-equiv).
__device__ int g_target = 3;
__constant__ int *c_ptr = &g_target;
__global__ void k_read_ptr(int *o) { o[0] = *c_ptr; }
