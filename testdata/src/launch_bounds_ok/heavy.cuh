// The chain kernel -> mid_lb -> heavy_lb crosses three files.
__device__ __noinline__ float heavy_lb(const float *p, int n);
__device__ __noinline__ float mid_lb(const float *p, int n);
