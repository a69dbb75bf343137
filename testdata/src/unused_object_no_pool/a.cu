// A function's object no code uses (unused_g) is not nvlink's pool: no kernel takes the
// alignment of every function's object for it (k1 stays aligned 8, for its double array).
__shared__ float4 unused_g[4];
__device__ __noinline__ float own_big(int i) { __shared__ float4 big[4]; big[i & 3] = make_float4(i, i, i, i); __syncthreads(); return big[(i + 1) & 3].x; }
__global__ void k0(float *o) { o[threadIdx.x] = own_big(threadIdx.x); }
