// A second object's list, sorted the same way, joins the first one's groups.
typedef int (*fp)(int);
__device__ int g1(int x);
__device__ int h1(int x) { return x * x; }
static __device__ int t1(int x) { return x + 11; }
__device__ fp tab_b[3] = {h1, g1, t1};
__global__ void kb(int *o) { o[0] = tab_b[o[1]](o[2]); }
