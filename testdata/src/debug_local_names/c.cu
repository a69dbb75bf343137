// A kernel using a double atomicAdd (-G: __dAtomicAdd, a local function, in every object).
__global__ void k_c(double *sum, const float *v)
{
    atomicAdd(sum, (double)v[threadIdx.x] * 3.0);
}
