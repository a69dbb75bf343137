// Kernels with different amounts of static shared memory next to extern __shared__ arrays:
// nvlink's -r gives each kernel that refers to an extern array an instance symbol placed
// after its static bytes (16-aligned), and sizes its .nv.shared.<kernel> accordingly.
extern __shared__ float dyn_f[];
extern __shared__ double dyn_d[];
extern __shared__ char dyn_c[];

__device__ __noinline__ float through_callee(int i) { return dyn_f[i]; }

__global__ void k_extern_only(float *o) { dyn_f[threadIdx.x] = o[0]; __syncthreads(); o[1] = dyn_f[3]; }
__global__ void k_char_only(char *o) { dyn_c[threadIdx.x] = 1; __syncthreads(); o[1] = dyn_c[2]; }
__global__ void k_callee_only(float *o) { o[0] = through_callee(threadIdx.x); }
__global__ void k_static_only(float *o) { __shared__ float s[64]; s[threadIdx.x % 64] = o[0]; __syncthreads(); o[1] = s[3]; }
__global__ void k_s8(int *o) { __shared__ int s[2]; s[threadIdx.x % 2] = 1; dyn_f[threadIdx.x] = 1; __syncthreads(); o[1] = s[1] + dyn_f[2]; }
__global__ void k_s32(char *o) { __shared__ char s[32]; s[threadIdx.x % 32] = 1; dyn_f[threadIdx.x] = 1; __syncthreads(); o[1] = s[3] + dyn_f[2]; }
__global__ void k_s48(char *o) { __shared__ char s[48]; s[threadIdx.x % 48] = 1; dyn_d[threadIdx.x] = 1; __syncthreads(); o[1] = s[3] + dyn_d[2]; }
__global__ void k_s260(char *o) { __shared__ char s[260]; s[threadIdx.x % 260] = 1; dyn_d[threadIdx.x] = 1; __syncthreads(); o[1] = s[3] + dyn_d[2]; }
