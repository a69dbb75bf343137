// One name, two sizes: an inline variable (weak, one copy kept) declared with another size
// in another file, a template kernel whose static __shared__ array has another type there,
// and an extern declaration with a third size. nvlink compares every sized mention of a data
// name with the first and refuses the link ("Size doesn't match for 'g' in 'b.o', first
// specified in 'a.o'"), where keeping the first copy would leave the other file's code
// reading past it. Functions' copies may differ (a.cu's and b.cu's helper do).
inline __device__ int table[3];
inline __constant__ int coeff[3] = {1, 2, 3};

template <int N> __global__ void tk(int *p)
{
    __shared__ int s[N];
    s[threadIdx.x] = p[threadIdx.x];
    __syncthreads();
    p[threadIdx.x] = s[N - 1 - threadIdx.x];
}
template __global__ void tk<3>(int *);

inline __device__ __noinline__ int helper(int x) { return x + 1; }

__global__ void ka(int *p) { p[0] = table[threadIdx.x] + coeff[1] + helper(p[1]); }
