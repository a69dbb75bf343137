// Where the output's section symbols of debug sections go (black-box, nvlink 13.5): each
// object's debug sections get theirs where its memory sections' symbols end, whether the
// object names them or not, but only for sections some input names with a section symbol.
// This file is host code only: its cubin has an empty .debug_frame and no symbol for it;
// in -r links nvlink puts [.debug_frame] here, before the next file's helper functions.
int host_fn(int x) { return x + 1; }
