// (see b.cu)
template <int N> __global__ void tk(float *o) {
  __shared__ float t0[32 * N];
  ((char*)t0)[threadIdx.x] = ((char*)o)[0];
  __syncthreads();
  o[0] += ((float*)t0)[threadIdx.x ^ 1];
}
extern __device__ void pool(float *o);
__device__ __noinline__ void priv_k2(float *o) {
  __shared__ float k2q0[32];
  __shared__ float k2q1[32];
  __shared__ float k2q2[16];
  ((char*)k2q0)[threadIdx.x] = ((char*)o)[0];
  ((char*)k2q1)[threadIdx.x] = ((char*)o)[1];
  ((char*)k2q2)[threadIdx.x] = ((char*)o)[2];
  __syncthreads();
  o[0] += ((float*)k2q0)[threadIdx.x ^ 1];
  o[1] += ((float*)k2q1)[threadIdx.x ^ 2];
  o[2] += ((float*)k2q2)[threadIdx.x ^ 3];
}
__global__ void k2(float *o) {
  __shared__ float k2a0[32];
  __shared__ float k2a1[16];
  ((char*)k2a0)[threadIdx.x] = ((char*)o)[0];
  ((char*)k2a1)[threadIdx.x] = ((char*)o)[1];
  __syncthreads();
  o[0] += ((float*)k2a0)[threadIdx.x ^ 1];
  o[1] += ((float*)k2a1)[threadIdx.x ^ 2];
  priv_k2(o);
  pool(o);
}
template __global__ void tk<1>(float *);
