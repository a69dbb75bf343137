// A function with a double constant in its literal bank.
__device__ __noinline__ double scale(double x, int i)
{
    return x * 3.14159265358979311 + (i & 1 ? 2.718281828459045 : 1.4142135623730951);
}
