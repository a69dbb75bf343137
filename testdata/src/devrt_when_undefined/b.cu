__device__ float scale(float x) { return x * 2.0f + 1.0f; }
