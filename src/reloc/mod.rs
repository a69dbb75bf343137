//! Relocations: the R_CUDA_* / R_MERCURY_* type table, the bit-field patcher, and where values
//! go in capsule Mercury code.

pub mod capsule;
mod capsule_opcodes;
mod code_types;
pub mod patch;
pub mod table;

/// A SASS instruction's opcode: the low 12 bits of its first word (`None` when fewer than two
/// bytes are there).
fn opcode(instruction: &[u8]) -> Option<u16> {
    match instruction {
        [lo, hi, ..] => Some(u16::from_le_bytes([*lo, *hi]) & 0xfff),
        _ => None,
    }
}

/// Opcodes as a message lists them: `0x802 or 0x882`.
fn show_opcodes(opcodes: &[u16]) -> String {
    opcodes
        .iter()
        .map(|o| format!("{o:#05x}"))
        .collect::<Vec<_>>()
        .join(" or ")
}
