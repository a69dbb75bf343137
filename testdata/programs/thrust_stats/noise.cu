#include "functors.cuh"

__device__ float hash_noise(unsigned i) {
  i ^= i >> 16;
  i *= 0x7feb352dU;
  i ^= i >> 15;
  i *= 0x846ca68bU;
  i ^= i >> 16;
  return (i & 0xffffff) / float(0x1000000);
}
