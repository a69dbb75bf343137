__device__ __noinline__ float b_fetch(cudaTextureObject_t t, float x) { return tex2D<float>(t, x, x); }
__global__ void k_surf_read(cudaSurfaceObject_t surf, float *out)
{
    float v;
    surf2Dread(&v, surf, threadIdx.x * 4, 1);
    out[threadIdx.x] = v;
}
