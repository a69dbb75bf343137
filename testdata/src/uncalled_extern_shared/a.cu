// A function no kernel calls (kept by -preserve-relocs) addresses extern __shared__ arrays:
// it has no kernel's extern area, and nvlink writes -1 plus the addend there (-g: the
// array's symbol, at 0 for dynd, which no kernel names).
extern __shared__ float dyn[];
extern __shared__ double dynd[];
__device__ float uncalled_sum(const float *x) {
  dyn[threadIdx.x] = x[threadIdx.x];
  __syncthreads();
  return dyn[5] + dyn[threadIdx.x ^ 1] + (float)dynd[3];
}
__global__ void k_used(float *o) {
  dyn[threadIdx.x] = o[threadIdx.x];
  __syncthreads();
  o[threadIdx.x] = dyn[31 - threadIdx.x];
}
