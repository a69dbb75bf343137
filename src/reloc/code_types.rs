//! Which relocation types the toolkit writes against code, and on which instructions (the
//! opcode: the low 12 bits of the instruction's first word).
//!
//! Learnt from every relocation of a code section in the corpus, testdata/programs,
//! scripts/programs and the host objects' cubins (sm_75 to sm_121, 420,000 relocations):
//! 32-bit immediates sit on `MOV`/`UMOV`, calls on `CALL`, constant-bank offsets on
//! `LDC`/`ULDC` (sm_100+: `LDCU`), yields on their own instruction. A type the toolkit
//! never writes in code, or one on another instruction, is damage nvdisasm refuses
//! ("relocator unhandled by instruction encoder") and nvlink does not pass on.

use super::table::cuda;

/// Opcodes of the instructions that carry a 32-bit immediate (`MOV`, `UMOV`).
const IMMEDIATE: &[u16] = &[0x802, 0x882];

/// Each type written in code, with the opcodes it patches (`None`: many; the constant
/// operand of any sm_75–sm_89 ALU instruction, bindless texture offsets, shared-memory
/// addresses).
pub(super) const CODE_TYPES: &[(u32, Option<&[u16]>)] = &[
    (cuda::ABS32_32, Some(IMMEDIATE)),
    (cuda::ABS32_LO_32, Some(IMMEDIATE)),
    (cuda::ABS32_HI_32, Some(IMMEDIATE)),
    (cuda::ABS16_32, Some(IMMEDIATE)),
    (cuda::FUNC_DESC32_LO_32, Some(IMMEDIATE)),
    (cuda::FUNC_DESC32_HI_32, Some(IMMEDIATE)),
    (cuda::UNIFIED32_LO_32, Some(IMMEDIATE)),
    (cuda::UNIFIED32_HI_32, Some(IMMEDIATE)),
    (cuda::ABS47_34, Some(&[0x943])),
    (cuda::ABS55_16_34, Some(&[0x943])),
    (cuda::ABS56_16_34, Some(&[0x343])),
    (cuda::CONST_FIELD21_38, Some(&[0xab9, 0xb82])),
    (cuda::CONST_FIELD22_37, Some(&[0x7ac])),
    (cuda::YIELD_OPCODE9_0, Some(&[0x946])),
    (cuda::YIELD_CLEAR_PRED4_87, Some(&[0x946])),
    (cuda::CONST_FIELD19_40, None),
    (cuda::BINDLESSOFF14_40, None),
    (cuda::ABS24_40, None),
    // (sm_80–sm_89 `LDGSTS`: cp.async's shared-memory address.)
    (cuda::ABS20_44, Some(&[0xfae])),
];
