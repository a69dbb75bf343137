// A template helper both files instantiate: under -rdc a weak function, each copy with its
// own -G debug information (its .debug_info entry and .debug_loc lists relocated against it).
template <typename T> __device__ __noinline__ T mix(T a, T b, T t) {
  T d = b - a;
  return a + d * t;
}
