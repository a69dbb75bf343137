// Another object's kernel naming the handles by an extern declaration, after its own data.
extern __constant__ cudaSurfaceObject_t surfs[4];
__constant__ float other[7];
__global__ void k3(float v) { surf2Dwrite(v + other[2], surfs[2], threadIdx.x * 4, 0); }
