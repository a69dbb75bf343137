// The same names with other sizes (and the helper with another body).
inline __device__ int table[5];
inline __constant__ int coeff[5] = {1, 2, 3, 4, 5};

template <int N> __global__ void tk(int *p)
{
    __shared__ float4 s[N];
    s[threadIdx.x].x = p[threadIdx.x];
    __syncthreads();
    p[threadIdx.x] = s[N - 1 - threadIdx.x].y;
}
template __global__ void tk<3>(int *);

inline __device__ __noinline__ int helper(int x)
{
    int s = 0;
    for (int i = 0; i < x; i++)
        s += i * x;
    return s;
}

__global__ void kb(int *p) { p[0] = table[threadIdx.x] + coeff[4] + helper(p[1]); }
