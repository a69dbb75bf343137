__device__ unsigned hits;
__device__ __noinline__ int helper(int *p, int i) { p[i] = i; __threadfence(); return atomicAdd(&hits, 1); }
