// sin() in two objects: each holds a local copy of ptxas's __internal_trig_reduction_slowpathd,
// this one (under __launch_bounds__) with other instructions. sm_100+: a partial link's output
// holds both copies under one name, each with its capsule; finishing it pairs each copy's
// code with its own capsule (by its symbol), not the first of the name (cubin-ld refused the
// output as damaged: an opcode unlike its capsule entry's).
__global__ void __launch_bounds__(256) ka(const double *p, double *o) { o[0] = sin(p[0]); }
