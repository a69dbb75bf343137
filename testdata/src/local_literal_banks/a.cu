// pow() in two objects: each holds its own local copy of ptxas's __internal_accurate_pow
// with its literal bank .nv.constant2.__internal_accurate_pow (sm_75-sm_89). -r keeps one
// bank per copy, as nvlink does (cubin-ld merged the second copy's into the first's by name).
__global__ void ka(double *o, double x, double y) { o[0] = pow(x, y); }
