// -G, sm_100+: a kernel that calls nothing loses its MEMBAR.SC.VC in nvlink's final link,
// so its line table's last row moves up. The row is `advance_pc, set_prologue_end,
// end_sequence`: nvlink writes the new advance and keeps the flag just before the
// end_sequence (cubin-ld wrote the flag first).
__global__ void k_plain(int *o) { o[threadIdx.x] += 1; }
