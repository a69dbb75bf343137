// Functions the CUDA driver provides at load time (graph conditional nodes, device graph
// launch): nvlink leaves the references undefined, as for vprintf, instead of failing.
#include <cuda_runtime.h>

__global__ void k_conditional(cudaGraphConditionalHandle h, const int *flag)
{
    cudaGraphSetConditional(h, flag[0] != 0);
}

__global__ void k_launch(cudaGraphExec_t g, const int *flag)
{
    if (flag[0])
        cudaGraphLaunch(g, cudaStreamGraphTailLaunch);
}
