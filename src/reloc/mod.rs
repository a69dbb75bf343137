//! Relocations: the R_CUDA_* / R_MERCURY_* type table, the bit-field patcher, and where values
//! go in capsule Mercury code.

pub mod capsule;
mod capsule_opcodes;
mod code_types;
pub mod patch;
pub mod table;
