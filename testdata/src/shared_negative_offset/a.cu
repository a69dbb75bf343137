// A shared array read just below where an index points: ptxas folds `s[t - 1]` into the load's
// immediate, so the relocation is the array's address minus 4 (R_CUDA_ABS24_40 on sm_75-sm_89),
// a negative value where the array starts at offset 0, which nvlink writes as -0x4. Found
// linking cub's DeviceRadixSort (its onesweep kernel's `s[... - 1]`).
extern __device__ int b_smooth(const int *in);

__global__ void shift_left(int *p)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = p[t];
    __syncthreads();
    if (t > 0)
        p[t] = s[t - 1] + b_smooth(p);
}
