// Two functions with dense switches: jump tables in their own literal banks.
__device__ __noinline__ int pick(int op, int x)
{
    switch (op) {
    case 0: return x + 1;
    case 1: return x * 3;
    case 2: return x - 7;
    case 3: return x ^ 0x55;
    case 4: return x << 2;
    case 5: return x >> 1;
    case 6: return ~x;
    default: return 0;
    }
}
__device__ __noinline__ int pick2(int op, int x)
{
    switch (op) {
    case 0: return x + 11;
    case 1: return x * 13;
    case 2: return x - 17;
    case 3: return x ^ 0x155;
    case 4: return x << 3;
    default: return 1;
    }
}
