// A -G kernel that calls nothing.
__constant__ float gain[2] = {2.0f, 0.5f};

__global__ void k_leaf(float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = out[i] * gain[i & 1];
}
