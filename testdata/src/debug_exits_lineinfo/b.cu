// A second object: a loop whose exit is the kernel's end (a branch to the EXIT).
__global__ void k_loop(int *o, int n)
{
    for (int i = threadIdx.x;; i += 32) {
        if (o[i] == 0) break;
        o[i] *= 2;
    }
}

__global__ void k_tail(int *o, int n)
{
    int i = threadIdx.x;
    if (i < n) {
        int s = 0;
        for (int j = 0; j < n; j++) s += o[j] ^ j;
        o[i] = s;
    }
}
