// The function with the literal bank (double constants on sm_75-sm_89, a jump table on
// sm_100+) and the kernel a.cu names.
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
__global__ void k_late(int *o) { o[0] = lit(o[4]); }
