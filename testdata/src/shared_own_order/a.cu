// The order of static __shared__ objects (black-box, nvlink 13.5, sm_75-sm_120): every
// function's object of the link (.nv_debug.shared: unused, pool, template statics, callees'
// statics) is sorted once, largest first; each kernel's own objects are its function-scope
// objects (.nv.shared.<k>, in symbol-table order) then its functions' objects in that sorted
// order, sorted together by alignment then size, ties to the first half of nvlink's list
// merge sort. Here: k's a, b, c and helper's q, all float[32], go c, a, q, b.
__device__ __noinline__ void helper(float *o) {
  __shared__ float q[32];
  q[threadIdx.x] = o[0];
  __syncthreads();
  o[1] = q[threadIdx.x ^ 1];
}
__global__ void k(float *o) {
  __shared__ float a[32];
  __shared__ float b[32];
  __shared__ float c[32];
  a[threadIdx.x] = o[2];
  b[threadIdx.x] = o[3];
  c[threadIdx.x] = o[4];
  __syncthreads();
  o[5] = a[threadIdx.x ^ 1] + b[threadIdx.x ^ 2] + c[threadIdx.x ^ 3];
  helper(o);
}
