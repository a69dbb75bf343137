// Switch statements ptxas compiles to indirect branches (BRX) through jump tables in
// .nv.constant2.<fn>: the code before their targets moves when the finalizer adds or
// removes instructions (sm_100+: fence preambles, the debugger's barriers before exits).
__global__ void k_switch(int *o, int n)
{
    switch (o[threadIdx.x]) {
    case 0: o[1] = n; return;
    case 1: o[2] = n * 3; break;
    case 5: o[3] = n + 7; return;
    case 9: atomicAdd(o + 4, n); return;
    default: return;
    }
    o[5] = n;
}

__global__ void k_switch_fence(int *o, int n)
{
    int v = o[threadIdx.x];
    switch (v) {
    case 0: o[1] = n; break;
    case 1: o[2] = n * 3; __threadfence(); o[9] = 1; break;
    case 2: o[3] = n + 7; return;
    case 3: atomicAdd(o + 4, n); return;
    case 4: o[6] = n - 2; break;
    default: return;
    }
    __threadfence();
    o[5] = n;
}
