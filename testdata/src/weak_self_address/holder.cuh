// A class template both objects instantiate (weak in each) whose destructor no kernel calls.
// Its calls' return addresses are its own address, which the losing copy's code names as the
// winning copy. nvlink removes both copies; cubin-ld kept the winner as a function whose
// address is taken (found 2026-12-02 in thrust's temporary_array destructors and NVSHMEM's
// nvshmemi_fence, on every target).
__device__ __noinline__ int leaf(int x);

template <typename T> struct holder {
    T *p;
    __device__ ~holder() { leaf(leaf(int(reinterpret_cast<long>(p)))); }
};
