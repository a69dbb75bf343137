// k4<3> again, a kernel of this object's own, and a template kernel calling a template
// callee that owns a shared array (both weak, both again in c.cu).
template <int N> __global__ void k4(int *p)
{
    __shared__ int s[N];
    s[threadIdx.x] = p[threadIdx.x];
    __syncthreads();
    p[threadIdx.x] = s[N - 1 - threadIdx.x];
}

template <typename T> __device__ __noinline__ void fw(T *p)
{
    __shared__ T s[2];
    s[threadIdx.x & 1] = p[threadIdx.x];
    __syncthreads();
    p[threadIdx.x] = s[1 - (threadIdx.x & 1)];
}

template <int N> __global__ void kc(double *p) { fw<double>(p + N); }

template __global__ void k4<3>(int *);
template __global__ void kc<1>(double *);

__global__ void kint(int *p)
{
    __shared__ int s[3];
    s[threadIdx.x] = p[threadIdx.x];
    __syncthreads();
    p[threadIdx.x] = s[2 - threadIdx.x];
}
