// Local (STB_LOCAL) functions of one name in several objects: ptxas gives every file that
// divides floats its own local __cuda_sm3x_div_rn_noftz_f32_slowpath (weak under -G), and
// nvlink keeps each file's copy as a function of its own, sections and all.
// Here the helper is called from a static function.
static __device__ __noinline__ float h(float x, float y) { return x / y; }
__global__ void ka(float *o) { o[0] = h(o[1], o[2]); }
