// -r gives each kernel using an extern __shared__ array its own externsharedinstance symbol,
// in the order of the kernels' code among the inputs (k_a, k_b, k_c), though b.cu's launch of
// k_c puts k_c's symbol before k_b's (found by scripts/fuzz-equiv).
extern __shared__ float dyn_a[];
__global__ void k_a(float *o) { dyn_a[threadIdx.x] = o[0]; __syncthreads(); o[1] = dyn_a[3]; }
