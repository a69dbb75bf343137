// -preserve-relocs: a kernel using an extern __shared__ array (aligned 128: it gets no
// .nv.shared of its own off sm_90) brings .nv_debug.shared after its object's memory
// sections, and b.cu's function no kernel calls keeps its static object there. nvlink names
// the section there, before a.cu's [.debug_frame]; on sm_75 and sm_100+ (no reserved bytes
// of its own to name) cubin-ld named it with b.cu's symbols (scripts/fuzz-equiv seed 217).
extern __shared__ __align__(128) char dyn_a[];
__global__ void k_extern(int *o)
{
    int x = o ? o[threadIdx.x] : 0;
    dyn_a[threadIdx.x] = (char)x;
    x += (int)dyn_a[0];
    if (o) o[threadIdx.x] = x;
}
