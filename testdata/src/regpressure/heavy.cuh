// A callee that keeps many values live at once, so it needs far more registers than its callers.
__device__ __noinline__ float heavy(const float *p, int n);
