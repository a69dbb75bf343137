// sm_100+: a kernel with a fence that calls nothing, compiled with -lineinfo. nvlink's
// re-finalization removes the fence preamble and moves the line table's addresses with the
// code, in place (src/refinalize/lines.rs); cubin-ld moves them the same way.
__device__ unsigned done;

__global__ void publish(int *p, int n)
{
    int i = threadIdx.x;
    if (i >= n)
        return;
    p[i] = i;
    __threadfence();
    atomicAdd(&done, 1);
}
