// A file of data alone, linked first: no functions, so its .debug_frame is empty and has no
// section symbol. nvlink gives the output's [.debug_frame] symbol after this file's own
// section symbols ([.nv.global], [.nv.constant3], ...), in every mode.
__device__ int g;
__device__ int g_init = 5;
__constant__ int c_tab[4] = {1, 2, 3, 4};
