// A kernel that launches another (dynamic parallelism) does not take the launched kernel's
// shared memory: no .nv.shared.<kernel> for k_launcher, whose only route to f_static's object
// and to the extern array is the launch (found by scripts/fuzz-equiv: seed 34).
__global__ void k_child(int *);

__global__ void k_launcher(int *o)
{
    int x = o[threadIdx.x];
    if (x == 28)
        k_child<<<1, 1>>>((int *)0);
    o[threadIdx.x] = x;
}
