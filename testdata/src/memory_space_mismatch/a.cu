// Error case: names declared in one memory space (or without __managed__) and defined in
// another. nvlink compares every mention's memory space and managed attribute with the
// first mention's: "Memory space doesn't match" / "Managed attribute doesn't match".
extern __device__ int g_const;
extern __device__ int g_managed;
extern __device__ int g_fine;
__global__ void k_space_a(int *o) { o[0] = g_const + g_managed + g_fine; }
