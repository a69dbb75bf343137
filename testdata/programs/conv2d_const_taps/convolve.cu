#include "conv.cuh"

template <int R, int BX, int BY>
__global__ void convTiled(const float *in, float *out) {
  __shared__ float tile[BY + 2 * R][BX + 2 * R + 1];
  int x0 = blockIdx.x * BX, y0 = blockIdx.y * BY;
  for (int j = threadIdx.y; j < BY + 2 * R; j += BY)
    for (int i = threadIdx.x; i < BX + 2 * R; i += BX)
      tile[j][i] = fetchPixel(in, x0 + i - R, y0 + j - R);
  __syncthreads();
  int x = x0 + threadIdx.x, y = y0 + threadIdx.y;
  if (x >= cParams.width || y >= cParams.height) return;
  float acc = cParams.bias;
#pragma unroll
  for (int dy = -R; dy <= R; ++dy)
#pragma unroll
    for (int dx = -R; dx <= R; ++dx)
      acc += cTaps[(dy + R) * (2 * R + 1) + dx + R] * tile[threadIdx.y + R + dy][threadIdx.x + R + dx];
  out[y * cParams.pitch + x] = acc * cParams.gain * cGainPerRow[y];
}

template <int R>
__global__ void convNaive(const float *in, float *out) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= cParams.width || y >= cParams.height) return;
  float acc = cParams.bias;
  for (int dy = -R; dy <= R; ++dy)
    for (int dx = -R; dx <= R; ++dx)
      acc += cTaps[(dy + R) * (2 * R + 1) + dx + R] * fetchPixel(in, x + dx, y + dy);
  out[y * cParams.pitch + x] = acc * cParams.gain * cGainPerRow[y];
}

void launchConv(const float *in, float *out, int w, int h, int radius, bool tiled) {
  dim3 b(16, 16), g((w + 15) / 16, (h + 15) / 16);
  if (tiled) {
    if (radius == 1) convTiled<1, 16, 16><<<g, b>>>(in, out);
    else if (radius == 3) convTiled<3, 16, 16><<<g, b>>>(in, out);
    else convTiled<7, 16, 16><<<g, b>>>(in, out);
  } else {
    if (radius == 1) convNaive<1><<<g, b>>>(in, out);
    else convNaive<MAX_RADIUS><<<g, b>>>(in, out);
  }
}
