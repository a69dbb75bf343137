// A function's literal bank (double constants on sm_75-sm_89, a switch's jump table on
// sm_100+) that three kernels reach, the code of one of them naming another's address:
// ptxas writes the kernels' symbols (k_c, k_a, k_b) in another order than their code
// (k_a, k_b, k_c), and nvlink makes the kernels' .nv.constant2.<kernel> banks in the reverse
// of the symbols' order (k_b, k_a, k_c), not of the code's (scripts/fuzz-equiv seed 106).
__global__ void k_c(int *o);
__device__ __noinline__ int lit(int x)
{
    x = (int)((double)x * 6.6037118690784746 + 787629015.94597459 / (double)(x | 1));
    switch (x & 15) {
    case 0: x = x * 9 + 169; break;
    case 1: x = x * 9 + 598; break;
    case 2: x = x * 6 + 790; break;
    case 3: x = x * 5 + 801; break;
    case 4: x = x * 5 + 521; break;
    case 5: x = x * 2 + 140; break;
    case 6: x = x * 4 + 577; break;
    case 7: x = x * 7 + 483; break;
    case 8: x = x * 2 + 36; break;
    case 9: x = x * 5 + 118; break;
    case 10: x = x * 7 + 281; break;
    case 11: x = x * 6 + 412; break;
    default: x ^= 7;
    }
    return x;
}
__device__ void *kernel_address;
__global__ void k_b(int *o) { o[2] = lit(o[3]); kernel_address = (void *)k_c; }
__global__ void k_a(int *o) { o[0] = lit(o[1]); }
__global__ void k_c(int *o) { o[0] = lit(o[4]); }
