// A function no code calls that stores its own address in a pointer it calls through: its
// address is taken, by itself, so nvlink keeps it (with no indirect call site in the link it
// is kept all the same) and counts it among the targets of b.cu's indirect call, which
// warns that the kernel's stack size cannot be determined. cubin-ld took the reference for
// a return address and dropped the function (scripts/fuzz-equiv seed 75).
__device__ __noinline__ int calls_itself(int x)
{
    int (*volatile fp)(int) = calls_itself;
    return fp(x);
}
__device__ __noinline__ int identity(int x) { return x; }
