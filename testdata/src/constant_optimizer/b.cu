// The second object: a function two kernels reach, and one only the first reaches.
__device__ __noinline__ int shared_fn(int x)
{
    switch (x & 15) {
    case 0: x = x * 3 + 7; break;
    case 1: x = x * 5 + 17; break;
    case 2: x = x * 7 + 27; break;
    case 3: x = x * 9 + 37; break;
    case 4: x = x * 11 + 47; break;
    case 5: x = x * 13 + 57; break;
    case 6: x = x * 15 + 67; break;
    case 7: x = x * 17 + 77; break;
    case 8: x = x * 19 + 87; break;
    case 9: x = x * 21 + 97; break;
    case 10: x = x * 23 + 107; break;
    case 11: x = x * 25 + 117; break;
    case 12: x = x * 27 + 127; break;
    case 13: x = x * 29 + 137; break;
    default: x ^= 5;
    }
    return x;
}

__device__ __noinline__ int other_tu(int x)
{
    switch (x & 7) {
    case 0: x = x * 3 + 1; break;
    case 1: x = x * 5 + 2; break;
    case 2: x = x * 7 + 3; break;
    case 3: x = x * 9 + 4; break;
    case 4: x = x * 11 + 5; break;
    case 5: x = x * 13 + 6; break;
    default: x ^= 1;
    }
    return (int)((double)x * 2.718281828459045);
}
