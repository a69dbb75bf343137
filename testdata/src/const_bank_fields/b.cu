// The __constant__ struct, with a function so that the object is not data only.
struct T
{
    int a;
    int b;
    const int *p;
    const int *q;
};
__constant__ T c_tab = {1, 2, nullptr, nullptr};

__device__ int b_first() { return c_tab.a; }
