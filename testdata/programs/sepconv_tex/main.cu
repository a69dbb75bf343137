#include <cmath>
#include <cstdio>
#include <vector>
#include "conv.cuh"

int main() {
  const int w = 1024, h = 768;
  std::vector<float> taps(KLEN), img(w * h);
  float sum = 0;
  for (int k = 0; k < KLEN; ++k) sum += taps[k] = expf(-(k - KRADIUS) * (k - KRADIUS) / 18.0f);
  for (float &t : taps) t /= sum;
  for (int i = 0; i < w * h; ++i) img[i] = (i % 97) / 97.0f;
  int2 ext = make_int2(w, h);
  cudaMemcpyToSymbol(d_taps, taps.data(), KLEN * sizeof(float));
  cudaMemcpyToSymbol(d_extent, &ext, sizeof ext);

  cudaChannelFormatDesc fmt = cudaCreateChannelDesc<float>();
  cudaArray_t arr;
  cudaMallocArray(&arr, &fmt, w, h);
  cudaMemcpy2DToArray(arr, 0, 0, img.data(), w * sizeof(float), w * sizeof(float), h,
                      cudaMemcpyHostToDevice);
  cudaResourceDesc res = {};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = arr;
  cudaTextureDesc td = {};
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
  td.filterMode = cudaFilterModePoint;
  td.readMode = cudaReadModeElementType;
  cudaTextureObject_t tex;
  cudaCreateTextureObject(&tex, &res, &td, nullptr);

  float *tmp, *out;
  cudaMalloc(&tmp, w * h * sizeof(float));
  cudaMalloc(&out, w * h * sizeof(float));
  dim3 blk(16, 16), grd(w / 16, h / 16);
  ConvRowsTex<<<grd, blk>>>(tex, tmp);
  ConvColsSmem<<<grd, dim3(16, 8)>>>(tmp, out);
  cudaMemcpy(img.data(), out, w * h * sizeof(float), cudaMemcpyDeviceToHost);
  printf("%f\n", img[w * h / 2]);
  cudaDestroyTextureObject(tex);
  return 0;
}
