__device__ __noinline__ float c_scale(float v) { return v * 2.5f - 1.0f; }
