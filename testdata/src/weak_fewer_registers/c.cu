// The same templates as the other files, but for LOADS: as where translation units are
// compiled with other macros (-DNDEBUG, feature switches) and their weak copies differ.
#define LOADS 2

template <typename T>
__device__ __noinline__ T mix(const T* p, int stride)
{
    T v[LOADS];
#pragma unroll
    for (int i = 0; i < LOADS; ++i) v[i] = p[i * stride];
    T r = 0;
#pragma unroll
    for (int i = 0; i < LOADS; ++i) r = r * v[LOADS - 1 - i] + v[i];
    return r;
}

template <typename T>
__global__ void scale(T* p, int stride)
{
    T v[LOADS];
#pragma unroll
    for (int i = 0; i < LOADS; ++i) v[i] = p[threadIdx.x + i * stride];
    T r = 1;
#pragma unroll
    for (int i = 0; i < LOADS; ++i) r = r * v[i] - v[LOADS - 1 - i];
    p[threadIdx.x] = r;
}

template __global__ void scale<float>(float*, int);

__global__ void run_c(float* p, int stride) { p[threadIdx.x] = mix(p + threadIdx.x, stride); }
