// A function nothing calls whose literal bank (.nv.constant2.<fn>: double constants, a
// switch's jump table holding its own code addresses) refers back to it: the bank speaks for
// the function's code, so both go, as in nvlink (found by scripts/fuzz-equiv).
__device__ __noinline__ int never_called(int x)
{
    switch (x & 7) {
    case 0: x = x * 3 + 11; break;
    case 1: x = x * 5 + 12; break;
    case 2: x = x * 7 + 13; break;
    case 3: x = x * 2 + 14; break;
    case 4: x = x * 9 + 15; break;
    case 5: x = x * 4 + 16; break;
    case 6: x = x * 6 + 17; break;
    default: x ^= 7;
    }
    return (int)((double)x * 1.4302319548424449 + 386097030.2136817 / (double)(x | 1));
}
__global__ void k_live(int *o) { o[0] = o[1] + 1; }
