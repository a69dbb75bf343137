// sm_100+: texture fetches make the finalizer add scoreboard waits (DEPBAR.LE) between the
// constant loads that use their results; each wait is a 2-byte token of its own in the
// capsule (`d0 00`), so the records of the linked constant loads after them are found by
// counting tokens and records alike.
#define TAPS 9

__constant__ float taps[TAPS];
__constant__ int2 extent;

__global__ void blur_rows(cudaTextureObject_t src, float *dst) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= extent.x || y >= extent.y) return;
  float acc = 0.f;
#pragma unroll
  for (int k = 0; k < TAPS; ++k)
    acc += taps[k] * tex2D<float>(src, x + k - TAPS / 2 + 0.5f, y + 0.5f);
  dst[y * extent.x + x] = acc;
}
