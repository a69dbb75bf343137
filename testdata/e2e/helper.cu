// Constant data read by a callee in another translation unit (and, with -G, described by
// debug information that refers to it).
__constant__ float coeffs[4] = {1.0f, 0.5f, 0.25f, 0.125f};

__device__ float fma_helper(float a, float x, float y) { return a * x * coeffs[0] + y; }
