// -preserve-relocs and -g keep device functions no kernel calls. With one kernel in the link,
// nvlink gives that kernel their barriers (EIATTR_NUM_BARRIERS), as if it called them; not
// their registers, stack or shared memory (shared_unreached: with two kernels, neither
// gets them). The default link drops the functions and gives the kernel nothing.
__global__ void kc(int *p) { p[threadIdx.x] = threadIdx.x; }
