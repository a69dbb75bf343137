// Inline and template device functions instantiated in every TU that includes this header:
// each object carries a WEAK copy, and the linker keeps exactly one.
template <typename T> __device__ __noinline__ T tsum(T a, T b) { return a + b * (T)3; }
__device__ __noinline__ inline int inl_fn(int x) { return x * x - 5; }
template <typename T> __device__ T tvar = (T)11;
