#include <cstdio>
#include <cstring>
#include "imaging.cuh"

__global__ void sobelKernel(float scale);
__global__ void layerBlendKernel(float alpha);

int main() {
  const int w = 640, h = 480, layers = 4;
  TexHandles th;
  memset(&th, 0, sizeof(th));
  th.width = w; th.height = h; th.nLayers = layers;

  cudaChannelFormatDesc c4 = cudaCreateChannelDesc<uchar4>();
  cudaArray_t img, edg;
  cudaMallocArray(&img, &c4, w, h);
  cudaMallocArray(&edg, &c4, w, h, cudaArraySurfaceLoadStore);
  cudaResourceDesc rd;
  memset(&rd, 0, sizeof(rd));
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = img;
  cudaTextureDesc td;
  memset(&td, 0, sizeof(td));
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
  td.filterMode = cudaFilterModePoint;
  td.readMode = cudaReadModeNormalizedFloat;
  cudaCreateTextureObject(&th.image, &rd, &td, nullptr);
  rd.res.array.array = edg;
  cudaCreateSurfaceObject(&th.edges, &rd);

  float *lut;
  cudaMalloc(&lut, 256 * sizeof(float));
  cudaResourceDesc lr;
  memset(&lr, 0, sizeof(lr));
  lr.resType = cudaResourceTypeLinear;
  lr.res.linear.devPtr = lut;
  lr.res.linear.desc = cudaCreateChannelDesc<float>();
  lr.res.linear.sizeInBytes = 256 * sizeof(float);
  cudaTextureDesc ld;
  memset(&ld, 0, sizeof(ld));
  cudaCreateTextureObject(&th.gradLut, &lr, &ld, nullptr);

  cudaChannelFormatDesc cf = cudaCreateChannelDesc<float>();
  cudaArray_t lay;
  cudaMalloc3DArray(&lay, &cf, make_cudaExtent(w, h, layers), cudaArrayLayered | cudaArraySurfaceLoadStore);
  rd.res.array.array = lay;
  cudaCreateSurfaceObject(&th.layers, &rd);

  cudaMemcpyToSymbol(cHandles, &th, sizeof(th));
  dim3 b(16, 16), g((w + 15) / 16, (h + 15) / 16);
  sobelKernel<<<g, b>>>(1.5f);
  layerBlendKernel<<<g, b>>>(0.25f);
  cudaDeviceSynchronize();
  printf("%s\n", cudaGetErrorString(cudaGetLastError()));
  return 0;
}
