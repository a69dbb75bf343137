// A kernel no host code launches calls a function no input defines: dead code, so no error,
// but the name is left undefined, and nvlink then links libcudadevrt whole (its kernels
// too), though nothing uses it.
extern __device__ float missing(float x);

__global__ void k_unlaunched(float *out) { out[threadIdx.x] = missing(out[threadIdx.x]); }
