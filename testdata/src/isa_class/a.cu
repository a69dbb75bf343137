// The ISA class of .nv.compat: a plain object first (class 1), then one whose code reads a
// texture (class 2) only in a function no kernel calls: nvlink writes the larger class.
__global__ void k_plain(int *o) { o[0] = 1; }
