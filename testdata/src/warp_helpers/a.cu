// Warp-level intrinsics with a mask on sm_75-sm_89: ptxas inlines its helpers
// (__cuda_sm70_votesync_ballot, __cuda_sm70_shflsync_down_p, ...) yet lists each as called in
// .nv.callgraph and keeps its code. No relocation reaches them; nvlink keeps them (code,
// .nv.info, prototype, call-graph entries, frames) because the call graph says they are called.
extern __device__ float b_reduce(float x);

__global__ void vote_shuffle(float *p, int n)
{
    float x = p[threadIdx.x];
    unsigned m = __ballot_sync(~0u, threadIdx.x < n);
    x += __shfl_down_sync(m, x, 1);
    p[threadIdx.x] = b_reduce(x);
}
