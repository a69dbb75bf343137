// Surface handles kept in __constant__ memory (bindless surface objects): on sm_75-sm_89 a
// surface instruction names its handle with R_CUDA_BINDLESSOFF14_40, the handle's offset in
// the constant bank in 4-byte words. ptxas writes RELA entries with the addend (surfs+0x18)
// and leaves the addend's words in the field; nvlink writes the field whole, (S + A) / 4
// (cubin-ld added S + A in bytes to it: another handle's offset, a silent miscompile).
__constant__ int pad[5];
__constant__ cudaSurfaceObject_t surfs[4];
__constant__ cudaTextureObject_t texs[3];
__global__ void k2(float v, int i)
{
    surf2Dwrite(v, surfs[3], threadIdx.x * 4, 0);
    surf1Dwrite(v + pad[1], surfs[1], threadIdx.x * 4);
    float4 t = tex1Dfetch<float4>(texs[2], i);
    surf2Dwrite(t.x, surfs[i & 3], 0, 0);
}
