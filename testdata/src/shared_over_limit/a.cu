// A kernel within 48 KiB of static shared memory on its own (ptxas takes it) whose callee in
// another file adds 0x800 bytes: the final link is over the limit, and nvlink fails with
// "Entry function '_Z6k_overPf' uses too much shared data (0xc380 bytes, 0xc000 max)"
// (sm_90 and later: not counting the 0x400 bytes they reserve). -r links it.
__device__ float scratch(float v);
__global__ void k_over(float *o) {
  __shared__ float tile[12000];
  tile[threadIdx.x] = o[threadIdx.x];
  __syncthreads();
  o[threadIdx.x] = scratch(tile[(threadIdx.x + 1) % 12000]);
}
__global__ void k_fits(float *o) { o[0] = scratch(o[1]); }
