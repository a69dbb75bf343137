// Template kernels and callees instantiated in several objects: each object has a weak copy
// of their static __shared__ objects (in its .nv_debug.shared). The link keeps the first
// copy; the others are not objects of the link: a losing copy neither makes a pool of
// functions' objects nor raises a kernel's alignment (k4<3>'s section stays 4-aligned,
// though this object's .nv_debug.shared is 16-aligned for k16's float4 array).
template <int N> __global__ void k4(int *p)
{
    __shared__ int s[N];
    s[threadIdx.x] = p[threadIdx.x];
    __syncthreads();
    p[threadIdx.x] = s[N - 1 - threadIdx.x];
}

template <int N> __global__ void k16(float4 *p)
{
    __shared__ float4 s[N];
    s[threadIdx.x] = p[threadIdx.x];
    __syncthreads();
    p[threadIdx.x] = s[N - 1 - threadIdx.x];
}

template __global__ void k4<3>(int *);
template __global__ void k16<2>(float4 *);

// (A kernel of the file's own, so that nvcc names the file's module by it, the same in every
// build: a file of template instantiations alone gets a name made anew each time.)
__global__ void a_marker(int *p) { p[0] = 1; }
