//! Relocations: the R_CUDA_* / R_MERCURY_* type table. (Planning and patching come with the
//! executable link.)

pub mod table;
