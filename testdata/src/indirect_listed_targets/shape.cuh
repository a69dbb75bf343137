struct B { __device__ virtual int f(int x) { return x + 1; } __device__ virtual ~B() {} };
struct D : B { __device__ int f(int x) override { return x * 3; } };
