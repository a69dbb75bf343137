// __device__ pointers initialised with the addresses of __constant__ data: the generic
// address of constant memory is the driver's to give (R_CUDA_G64 in .nv.global.init), so
// nvlink keeps those relocations in its output, in every mode.
__constant__ float c_a[4] = {1, 2, 3, 4};
__constant__ double c_d[2] = {0.5, 0.25};

__device__ const float *g_p = c_a;
__device__ const float *g_q = &c_a[2];

// (A function, so that the file is not data alone: linked first, such a file's section
// symbols come in an order cubin-ld does not follow yet.)
__device__ float a_first() { return c_a[0]; }
