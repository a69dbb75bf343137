// Template kernels whose static __shared__ storage ptxas puts in .nv_debug.shared (weak
// objects), in an object before the one that uses an extern __shared__ array: nvlink makes
// the output's .nv_debug.shared at this object's own (after its .nv.global), not after the
// later object's kernel sections. (From cub's DeviceReduce beside DeviceScan: scripts/programs'
// cub_device_sweep.)
__device__ int a_count;

template <typename T>
__global__ void k_tile(const T *in, T *out)
{
    __shared__ T storage[64];
    storage[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = storage[63 - threadIdx.x];
    atomicAdd(&a_count, 1);
}

template __global__ void k_tile<int>(const int *, int *);
template __global__ void k_tile<float>(const float *, float *);
