// A kernel using an extern __shared__ array: under -r nvlink names the partial link's
// .nv_debug.shared at this object's debug sections, because a later input has a section
// symbol for one.
extern __shared__ float dyn[];
__global__ void kd(float *p) {
  dyn[threadIdx.x] = p[threadIdx.x];
  __syncthreads();
  p[threadIdx.x] = dyn[0];
}
