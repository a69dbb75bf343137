// Texture and surface objects (bindless) passed as kernel parameters and to a callee in b.cu.
extern __device__ float b_fetch(cudaTextureObject_t t, float x);
__global__ void k_tex(cudaTextureObject_t tex, cudaSurfaceObject_t surf, float *out)
{
    float v = tex1D<float>(tex, threadIdx.x + 0.5f) + b_fetch(tex, 1.0f);
    surf2Dwrite(v, surf, threadIdx.x * 4, 0);
    out[threadIdx.x] = v;
}
