#include "heavy.cuh"
// Keeps many values live at once, so it needs far more registers than its callers.
__device__ __noinline__ float heavy_lb(const float *p, int n)
{
    float v[40];
#pragma unroll
    for (int i = 0; i < 40; ++i) v[i] = p[i * n];
    float acc = 0.0f;
#pragma unroll
    for (int r = 0; r < 4; ++r) {
#pragma unroll
        for (int i = 0; i < 40; ++i) v[i] = v[i] * v[(i + 7) % 40] + v[(i + 13) % 40];
    }
#pragma unroll
    for (int i = 0; i < 40; ++i) acc += v[i] * (float)(i + 1);
    return acc;
}
