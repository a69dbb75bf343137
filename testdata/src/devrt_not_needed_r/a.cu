// A kernel that needs nothing from libcudadevrt, partially linked with -lcudadevrt (as a build
// that always names the library does): nvlink links none of the library in. On sm_90 and
// later every object declares the unified tables' placeholders (__UFT_OFFSET, ...), which a
// partial link keeps undefined; cubin-ld took them for references a library could define and
// linked the whole device runtime in (scripts/fuzz-equiv seed 208).
__global__ void k_alone(int *o) { o[1] = 2; }
