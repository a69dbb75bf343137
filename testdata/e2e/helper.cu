__device__ float fma_helper(float a, float x, float y) { return a * x + y; }
