// A kernel whose only shared memory is an extern array (nvlink's -r gives it a .nv.shared.<kernel>
// of 0x80 with no object in it) beside a kernel with static objects alone: finishing the
// partial link, nvlink keeps the area whole and puts the array after it (0x80), as it does
// where every kernel has such an area (partial_extern_pair).
extern __shared__ __align__(64) float dyn[];
__global__ void k_ext(int *o) { dyn[threadIdx.x] = (float)o[0]; o[1] = (int)dyn[0]; }
__global__ void k_static(int *o) {
  __shared__ int s[40];
  s[threadIdx.x % 40] = o[0];
  __syncthreads();
  o[1] = s[(threadIdx.x + 1) % 40];
}
