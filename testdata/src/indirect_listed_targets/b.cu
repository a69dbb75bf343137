// f prints, calls g in c.cu, and deletes an object whose type it knows.
#include <cstdio>
#include "shape.cuh"
__device__ int g(int);
__device__ __noinline__ int f(int x)
{
    printf("%d\n", x);
    x = g(x);
    B *b = new D();
    x = b->f(x);
    delete b;
    return x;
}
