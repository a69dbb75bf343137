// Error case: the kernel's launch bounds cap its registers below what its callee needs.
#include "heavy.cuh"
__global__ void __launch_bounds__(1024, 2) k_light_lb(float *out, const float *in)
{
    out[threadIdx.x] = heavy(in, threadIdx.x);
}
