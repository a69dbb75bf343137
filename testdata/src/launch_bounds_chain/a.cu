// Error case: the kernel's launch bounds cap its registers below what a callee two calls away
// needs (the message names the call chain).
#include "heavy.cuh"
__global__ void __launch_bounds__(1024, 2) k_bound(float *out, const float *in)
{
    out[threadIdx.x] = mid_lb(in, threadIdx.x);
}
