// Finishing a partial link whose kernel uses an extern __shared__ array: nvlink -r defines
// the array in its output's .nv_debug.shared, which no section symbol names, and the final
// link makes its own .nv_debug.shared where that array's symbol is among the data sections'
// first variables: before .nv.global here (b's and c's variables come after the array).
// cubin-ld made it with the array's symbol, after every section (scripts/fuzz-equiv
// seed 120).
extern __shared__ __align__(128) float dyn_a[];
__global__ void k_a(float *o)
{
    dyn_a[threadIdx.x] = o[0];
    __syncthreads();
    o[1] = dyn_a[threadIdx.x + 1];
}
