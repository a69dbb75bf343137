// A kernel whose parameters pass 4 KiB: ptxas describes them with EIATTR_KPARAM_INFO_V2
// records (on every target), which nvlink copies in every mode.
struct Table {
  float x[1100];
};

__device__ float pick(const Table &t, int i);

__global__ void k_big(Table t, float *out) {
  out[threadIdx.x] = t.x[threadIdx.x] + pick(t, threadIdx.x + 1);
}

__global__ void k_small(float *out) { out[threadIdx.x] = 1.0f; }
