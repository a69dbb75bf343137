#include <cstdio>
#include <vector>
#include "conv.cuh"

void launchConv(const float *in, float *out, int w, int h, int radius, bool tiled);

int main() {
  const int w = 512, h = 512;
  ConvParams p{w, h, w, 0.f, 1.f, 0};
  std::vector<float> rowGain(h, 1.f), img(w * h, 1.f);
  float *dIn, *dOut;
  cudaMalloc(&dIn, w * h * sizeof(float));
  cudaMalloc(&dOut, w * h * sizeof(float));
  cudaMemcpy(dIn, img.data(), w * h * sizeof(float), cudaMemcpyHostToDevice);
  for (int r : {1, 3, 7}) {
    int n = 2 * r + 1;
    std::vector<float> taps(n * n, 1.f / (n * n));
    uploadFilter(taps.data(), r, p, rowGain.data());
    launchConv(dIn, dOut, w, h, r, true);
    launchConv(dIn, dOut, w, h, r, false);
  }
  cudaMemcpy(img.data(), dOut, w * h * sizeof(float), cudaMemcpyDeviceToHost);
  printf("%f\n", img[w * 10 + 10]);
  return 0;
}
