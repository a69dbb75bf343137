// (with c.cu) Own objects of k1 and k2 take their order from the one sorted list of the
// link's functions' objects: unused0, the pool's p, the template's weak t0 (first copy),
// both kernels' callee statics.
template <int N> __global__ void tk(float *o) {
  __shared__ float t0[32 * N];
  ((char*)t0)[threadIdx.x] = ((char*)o)[0];
  __syncthreads();
  o[0] += ((float*)t0)[threadIdx.x ^ 1];
}
__shared__ float unused0[16];
__device__ __noinline__ void pool(float *o) {
  __shared__ float p[32];
  ((char*)p)[threadIdx.x] = ((char*)o)[0];
  __syncthreads();
  o[0] += ((float*)p)[threadIdx.x ^ 1];
}
__device__ __noinline__ void priv_k1(float *o) {
  __shared__ float k1q0[16];
  __shared__ float k1q1[16];
  __shared__ float k1q2[16];
  ((char*)k1q0)[threadIdx.x] = ((char*)o)[0];
  ((char*)k1q1)[threadIdx.x] = ((char*)o)[1];
  ((char*)k1q2)[threadIdx.x] = ((char*)o)[2];
  __syncthreads();
  o[0] += ((float*)k1q0)[threadIdx.x ^ 1];
  o[1] += ((float*)k1q1)[threadIdx.x ^ 2];
  o[2] += ((float*)k1q2)[threadIdx.x ^ 3];
}
__global__ void k1(float *o) {
  __syncthreads();
  priv_k1(o);
  pool(o);
}
template __global__ void tk<1>(float *);
