#include "histo.cuh"

void histogram256(const uint4 *d, int words, unsigned *partials, unsigned *out) {
  histo_partial<256><<<kPartials, kHistThreads>>>(d, words, partials);
  histo_merge<256><<<256, 256>>>(partials, out, kPartials);
}

void histogram64(const uint4 *d, int words, unsigned *partials, unsigned *out) {
  histo_partial<64><<<kPartials, kHistThreads>>>(d, words, partials);
  histo_merge<64><<<64, 256>>>(partials, out, kPartials);
}
