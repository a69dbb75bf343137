// kc<1> and its callee fw<double> again.
template <typename T> __device__ __noinline__ void fw(T *p)
{
    __shared__ T s[2];
    s[threadIdx.x & 1] = p[threadIdx.x];
    __syncthreads();
    p[threadIdx.x] = s[1 - (threadIdx.x & 1)];
}

template <int N> __global__ void kc(double *p) { fw<double>(p + N); }

template __global__ void kc<1>(double *);

// (A kernel of the file's own, so that nvcc names the file's module by it, the same in every
// build: a file of template instantiations alone gets a name made anew each time.)
__global__ void c_marker(int *p) { p[0] = 1; }
