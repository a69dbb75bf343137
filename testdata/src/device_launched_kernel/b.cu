__device__ float heavy(const float *o, int n) {
  float a[24];
  for (int i = 0; i < 24; i++) a[i] = o[i * n] * o[i + n];
  float s = 0;
  for (int i = 0; i < 24; i++)
    for (int j = 0; j < 24; j++) s += a[i] * a[j] / (a[(i + j) % 24] + 1.0f);
  return s;
}

// (Double literals: on sm_75 the kernel has a literal bank, .nv.constant2, its own, not
// merged into its parent's.)
__global__ void k_child(float *o, int n) {
  double d = o[n];
  o[threadIdx.x] = heavy(o, n) + (float)(d * 1.000000321 + 2.718281828459045);
}
