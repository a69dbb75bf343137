extern __device__ float fma_helper(float a, float x, float y);
__device__ float bias;
__constant__ int stride[2] = {1, 2};

__global__ void scale_add(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = fma_helper(a, x[i * stride[0]], y[i]) + bias;
}

// Never launched from host code: nvlink (and cubin-ld) drop it.
__global__ void unused_kernel(float *y) { y[0] = bias; }
