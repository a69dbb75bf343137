extern "C" __device__ void g_mixed(int *p);

__global__ void k_caller(int *p) { g_mixed(p); }
