// The constant f reads lands after a.cu's: its offset in the bank changes in the link.
__constant__ int later = 7;

__device__ __noinline__ int g(int x) { return x * later + 1; }
