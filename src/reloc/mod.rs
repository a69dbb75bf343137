//! Relocations: the R_CUDA_* / R_MERCURY_* type table and the bit-field patcher.

pub mod patch;
pub mod table;
