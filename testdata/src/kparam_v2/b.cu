struct Table {
  float x[1100];
};

__device__ float pick(const Table &t, int i) { return t.x[i] * 2.0f; }

struct Pair {
  double a[300];
  int b[300];
};

__global__ void k_pair(Pair p, int *out) { out[threadIdx.x] = p.b[threadIdx.x] + (int)p.a[0]; }
