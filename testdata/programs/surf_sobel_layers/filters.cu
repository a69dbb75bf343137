#include "imaging.cuh"

__global__ void sobelKernel(float scale) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  const TexHandles &h = cHandles;
  if (x >= h.width || y >= h.height) return;
  float fx = x + 0.5f, fy = y + 0.5f;
  float mag = sobelAt(h.image, fx, fy) * scale;
  int bin = min(255, (int)(mag * 255.f));
  float shade = tex1Dfetch<float>(h.gradLut, bin);
  unsigned char v = (unsigned char)(255.f * fminf(1.f, shade));
  uchar4 out = make_uchar4(v, v, v, 255);
  surf2Dwrite(out, h.edges, x * sizeof(uchar4), y);
}

__global__ void layerBlendKernel(float alpha) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  const TexHandles &h = cHandles;
  if (x >= h.width || y >= h.height) return;
  float g = gatherMean(h.image, x + 0.5f, y + 0.5f);
  for (int l = 1; l < h.nLayers; ++l) {
    float prev = surf2DLayeredread<float>(h.layers, x * sizeof(float), y, l - 1, cudaBoundaryModeClamp);
    float cur = surf2DLayeredread<float>(h.layers, x * sizeof(float), y, l, cudaBoundaryModeClamp);
    surf2DLayeredwrite(alpha * prev + (1.f - alpha) * cur + 0.01f * g, h.layers, x * sizeof(float), y, l);
  }
}
