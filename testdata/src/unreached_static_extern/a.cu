// sm_90, -preserve-relocs and -g: a function no kernel calls has a static __shared__ object
// while kernels use extern __shared__ arrays; nvlink then defines each array in
// .nv_debug.shared counting the 0x400 reserved bytes in (at 0x3ff, internal, under
// -preserve-relocs; at 0x400 plus its offset under -g). sm_75 and sm_80 do not.
__device__ int uncalled_static(int i) { __shared__ int s[64]; s[i] = i; __syncthreads(); return s[63 - i]; }
__global__ void k_other(int *o) { o[threadIdx.x] = 7; }
