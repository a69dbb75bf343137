// The kernel reaches f, whose virtual calls the compiler devirtualized: f has no indirect
// call site, but its call graph still lists the class's methods and destructors as indirect
// targets. nvlink gathers their externs too (free, through the deleting destructor), in the
// order of the functions' .nv.info sections: EXTERNS [free, vprintf, malloc].
__device__ int f(int);
__global__ void k(int *o) { o[threadIdx.x] = f(o[threadIdx.x]); }
