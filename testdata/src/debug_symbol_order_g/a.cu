// -G: a file of data alone linked first: its empty .debug_frame and
// .nv_debug_info_reg_* get no symbols of their own; the output's [.debug_frame] comes after
// its memory sections' symbols, before its other debug sections'.
__device__ int gv = 5;
__constant__ int cv[4] = {1, 2, 3, 4};
