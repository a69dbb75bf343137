//! The relocation types nvcc and nvlink use. R_CUDA_* ordinals 0–116; R_MERCURY_* are stored
//! as 0x10000 + ordinal (0–64). Names as `cuobjdump -elf` prints them and public tables give.

/// Offset of the R_MERCURY_* numbering in r_type.
pub const MERCURY_BASE: u32 = 0x10000;

/// The R_CUDA_* types the link's rules name (ordinals in the table below).
pub mod cuda {
    pub const R_32: u32 = 1;
    pub const R_64: u32 = 2;
    pub const G64: u32 = 4;
    pub const TEX_HEADER_INDEX: u32 = 6;
    pub const SAMP_HEADER_INDEX: u32 = 7;
    pub const SURF_HEADER_INDEX: u32 = 52;
    pub const ABS32_32: u32 = 55;
    pub const ABS32_LO_32: u32 = 56;
    pub const ABS32_HI_32: u32 = 57;
    pub const ABS47_34: u32 = 58;
    pub const ABS16_32: u32 = 59;
    pub const FUNC_DESC32_LO_32: u32 = 62;
    pub const FUNC_DESC32_HI_32: u32 = 63;
    pub const CONST_FIELD19_40: u32 = 64;
    pub const BINDLESSOFF14_40: u32 = 65;
    pub const CONST_FIELD21_38: u32 = 66;
    pub const YIELD_OPCODE9_0: u32 = 68;
    pub const YIELD_CLEAR_PRED4_87: u32 = 69;
    pub const UNUSED_CLEAR32: u32 = 72;
    pub const UNUSED_CLEAR64: u32 = 73;
    pub const ABS24_40: u32 = 74;
    pub const ABS20_44: u32 = 100;
    pub const ABS55_16_34: u32 = 75;
    pub const UNIFIED: u32 = 102;
    pub const UNIFIED32_LO_32: u32 = 112;
    pub const UNIFIED32_HI_32: u32 = 113;
    pub const ABS56_16_34: u32 = 114;
    pub const CONST_FIELD22_37: u32 = 115;
}

/// The R_MERCURY_* types the link's rules name (stored as `MERCURY_BASE` + ordinal).
pub mod mercury {
    use super::MERCURY_BASE;
    pub const ABS64: u32 = MERCURY_BASE + 2;
    pub const ABS32: u32 = MERCURY_BASE + 3;
    pub const ABS32_LO: u32 = MERCURY_BASE + 5;
    pub const ABS32_HI: u32 = MERCURY_BASE + 6;
    pub const PROG_REL32: u32 = MERCURY_BASE + 8;
    pub const TEX_HEADER_INDEX: u32 = MERCURY_BASE + 0xb;
    pub const SAMP_HEADER_INDEX: u32 = MERCURY_BASE + 0xc;
    pub const SURF_HEADER_INDEX: u32 = MERCURY_BASE + 0xd;
    pub const UNUSED_CLEAR64: u32 = MERCURY_BASE + 0xe;
    pub const UNIFIED: u32 = MERCURY_BASE + 0x32;
    pub const UNIFIED32_LO: u32 = MERCURY_BASE + 0x3e;
    pub const UNIFIED32_HI: u32 = MERCURY_BASE + 0x3f;
}

/// What the link does with a type, before looking at the symbol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// R_CUDA_NONE: nothing to do; nvlink drops it. (It keeps R_MERCURY_NONE, which the
    /// Mercury half passes on as it comes.)
    None,
    /// Scheduling hints (YIELD): dropped, never applied.
    Yield,
    /// UNUSED_CLEAR: a field (4 or 8 bytes) cleared when the function it describes was
    /// removed (the address range of its `.debug_frame` entry); dropped either way.
    UnusedClear { width: usize },
    /// A call (the driver resolves it; it makes a call-graph edge).
    Call,
    /// Any other: its value depends on what the symbol is.
    Value,
}

/// The kind of an R_CUDA_* type.
pub fn kind(r_type: u32) -> Kind {
    match r_type {
        0 => Kind::None,
        cuda::YIELD_OPCODE9_0 | cuda::YIELD_CLEAR_PRED4_87 => Kind::Yield,
        cuda::UNUSED_CLEAR32 => Kind::UnusedClear { width: 4 },
        cuda::UNUSED_CLEAR64 => Kind::UnusedClear { width: 8 },
        cuda::ABS47_34 | cuda::ABS55_16_34 => Kind::Call,
        _ => Kind::Value,
    }
}

/// Why a relocation of type `r_type` cannot patch the instruction whose first bytes are
/// `instruction` (`None` where it can, as the toolkit writes it: `code_types`).
pub fn unlike_code(r_type: u32, instruction: &[u8]) -> Option<String> {
    let name = name(r_type);
    let Some(&(_, opcodes)) = super::code_types::CODE_TYPES
        .iter()
        .find(|(t, _)| *t == r_type)
    else {
        return Some(format!(
            "type {} ({r_type:#x}) is not one the toolkit writes against code",
            name.unwrap_or("?")
        ));
    };
    let opcodes = opcodes?;
    let opcode = super::opcode(instruction)?;
    (!opcodes.contains(&opcode)).then(|| {
        format!(
            "type {} patches an instruction with opcode {opcode:#05x}, where the toolkit \
             writes it only on {}",
            name.unwrap_or("?"),
            super::show_opcodes(opcodes)
        )
    })
}

/// Calls, and the 64-bit-address form the function table uses (ABS56_16_34), which a
/// partial link drops with the unified tables' placeholders.
pub fn is_call_or_table_call(r_type: u32) -> bool {
    kind(r_type) == Kind::Call || r_type == cuda::ABS56_16_34
}

/// Without a unified table, unified addresses become plain ones: R_CUDA_UNIFIED in data →
/// R_CUDA_64, UNIFIED32_LO/HI_32 → ABS32_LO/HI_32 (`None`: the type stays).
pub fn without_unified_table(r_type: u32, in_code: bool) -> Option<u32> {
    match r_type {
        cuda::UNIFIED if !in_code => Some(cuda::R_64),
        cuda::UNIFIED32_LO_32 => Some(cuda::ABS32_LO_32),
        cuda::UNIFIED32_HI_32 => Some(cuda::ABS32_HI_32),
        _ => None,
    }
}

const R_CUDA: [&str; 117] = [
    "R_CUDA_NONE",
    "R_CUDA_32",
    "R_CUDA_64",
    "R_CUDA_G32",
    "R_CUDA_G64",
    "R_CUDA_ABS32_26",
    "R_CUDA_TEX_HEADER_INDEX",
    "R_CUDA_SAMP_HEADER_INDEX",
    "R_CUDA_SURF_HW_DESC",
    "R_CUDA_SURF_HW_SW_DESC",
    "R_CUDA_ABS32_LO_26",
    "R_CUDA_ABS32_HI_26",
    "R_CUDA_ABS32_23",
    "R_CUDA_ABS32_LO_23",
    "R_CUDA_ABS32_HI_23",
    "R_CUDA_ABS24_26",
    "R_CUDA_ABS24_23",
    "R_CUDA_ABS16_26",
    "R_CUDA_ABS16_23",
    "R_CUDA_TEX_SLOT",
    "R_CUDA_SAMP_SLOT",
    "R_CUDA_SURF_SLOT",
    "R_CUDA_TEX_BINDLESSOFF13_32",
    "R_CUDA_TEX_BINDLESSOFF13_47",
    "R_CUDA_CONST_FIELD19_28",
    "R_CUDA_CONST_FIELD19_23",
    "R_CUDA_TEX_SLOT9_49",
    "R_CUDA_6_31",
    "R_CUDA_2_47",
    "R_CUDA_TEX_BINDLESSOFF13_41",
    "R_CUDA_TEX_BINDLESSOFF13_45",
    "R_CUDA_FUNC_DESC32_23",
    "R_CUDA_FUNC_DESC32_LO_23",
    "R_CUDA_FUNC_DESC32_HI_23",
    "R_CUDA_FUNC_DESC_32",
    "R_CUDA_FUNC_DESC_64",
    "R_CUDA_CONST_FIELD21_26",
    "R_CUDA_QUERY_DESC21_37",
    "R_CUDA_CONST_FIELD19_26",
    "R_CUDA_CONST_FIELD21_23",
    "R_CUDA_PCREL_IMM24_26",
    "R_CUDA_PCREL_IMM24_23",
    "R_CUDA_ABS32_20",
    "R_CUDA_ABS32_LO_20",
    "R_CUDA_ABS32_HI_20",
    "R_CUDA_ABS24_20",
    "R_CUDA_ABS16_20",
    "R_CUDA_FUNC_DESC32_20",
    "R_CUDA_FUNC_DESC32_LO_20",
    "R_CUDA_FUNC_DESC32_HI_20",
    "R_CUDA_CONST_FIELD19_20",
    "R_CUDA_BINDLESSOFF13_36",
    "R_CUDA_SURF_HEADER_INDEX",
    "R_CUDA_INSTRUCTION64",
    "R_CUDA_CONST_FIELD21_20",
    "R_CUDA_ABS32_32",
    "R_CUDA_ABS32_LO_32",
    "R_CUDA_ABS32_HI_32",
    "R_CUDA_ABS47_34",
    "R_CUDA_ABS16_32",
    "R_CUDA_ABS24_32",
    "R_CUDA_FUNC_DESC32_32",
    "R_CUDA_FUNC_DESC32_LO_32",
    "R_CUDA_FUNC_DESC32_HI_32",
    "R_CUDA_CONST_FIELD19_40",
    "R_CUDA_BINDLESSOFF14_40",
    "R_CUDA_CONST_FIELD21_38",
    "R_CUDA_INSTRUCTION128",
    "R_CUDA_YIELD_OPCODE9_0",
    "R_CUDA_YIELD_CLEAR_PRED4_87",
    "R_CUDA_32_LO",
    "R_CUDA_32_HI",
    "R_CUDA_UNUSED_CLEAR32",
    "R_CUDA_UNUSED_CLEAR64",
    "R_CUDA_ABS24_40",
    "R_CUDA_ABS55_16_34",
    "R_CUDA_8_0",
    "R_CUDA_8_8",
    "R_CUDA_8_16",
    "R_CUDA_8_24",
    "R_CUDA_8_32",
    "R_CUDA_8_40",
    "R_CUDA_8_48",
    "R_CUDA_8_56",
    "R_CUDA_G8_0",
    "R_CUDA_G8_8",
    "R_CUDA_G8_16",
    "R_CUDA_G8_24",
    "R_CUDA_G8_32",
    "R_CUDA_G8_40",
    "R_CUDA_G8_48",
    "R_CUDA_G8_56",
    "R_CUDA_FUNC_DESC_8_0",
    "R_CUDA_FUNC_DESC_8_8",
    "R_CUDA_FUNC_DESC_8_16",
    "R_CUDA_FUNC_DESC_8_24",
    "R_CUDA_FUNC_DESC_8_32",
    "R_CUDA_FUNC_DESC_8_40",
    "R_CUDA_FUNC_DESC_8_48",
    "R_CUDA_FUNC_DESC_8_56",
    "R_CUDA_ABS20_44",
    "R_CUDA_SAMP_HEADER_INDEX_0",
    "R_CUDA_UNIFIED",
    "R_CUDA_UNIFIED_32",
    "R_CUDA_UNIFIED_8_0",
    "R_CUDA_UNIFIED_8_8",
    "R_CUDA_UNIFIED_8_16",
    "R_CUDA_UNIFIED_8_24",
    "R_CUDA_UNIFIED_8_32",
    "R_CUDA_UNIFIED_8_40",
    "R_CUDA_UNIFIED_8_48",
    "R_CUDA_UNIFIED_8_56",
    "R_CUDA_UNIFIED32_LO_32",
    "R_CUDA_UNIFIED32_HI_32",
    "R_CUDA_ABS56_16_34",
    "R_CUDA_CONST_FIELD22_37",
    "R_CUDA_NONE_LAST",
];

const R_MERCURY: [&str; 65] = [
    "R_MERCURY_NONE",
    "R_MERCURY_G64",
    "R_MERCURY_ABS64",
    "R_MERCURY_ABS32",
    "R_MERCURY_ABS16",
    "R_MERCURY_ABS32_LO",
    "R_MERCURY_ABS32_HI",
    "R_MERCURY_PROG_REL64",
    "R_MERCURY_PROG_REL32",
    "R_MERCURY_PROG_REL32_LO",
    "R_MERCURY_PROG_REL32_HI",
    "R_MERCURY_TEX_HEADER_INDEX",
    "R_MERCURY_SAMP_HEADER_INDEX",
    "R_MERCURY_SURF_HEADER_INDEX",
    "R_MERCURY_UNUSED_CLEAR64",
    "R_MERCURY_FUNC_DESC_64",
    "R_MERCURY_8_0",
    "R_MERCURY_8_8",
    "R_MERCURY_8_16",
    "R_MERCURY_8_24",
    "R_MERCURY_8_32",
    "R_MERCURY_8_40",
    "R_MERCURY_8_48",
    "R_MERCURY_8_56",
    "R_MERCURY_G8_0",
    "R_MERCURY_G8_8",
    "R_MERCURY_G8_16",
    "R_MERCURY_G8_24",
    "R_MERCURY_G8_32",
    "R_MERCURY_G8_40",
    "R_MERCURY_G8_48",
    "R_MERCURY_G8_56",
    "R_MERCURY_FUNC_DESC_8_0",
    "R_MERCURY_FUNC_DESC_8_8",
    "R_MERCURY_FUNC_DESC_8_16",
    "R_MERCURY_FUNC_DESC_8_24",
    "R_MERCURY_FUNC_DESC_8_32",
    "R_MERCURY_FUNC_DESC_8_40",
    "R_MERCURY_FUNC_DESC_8_48",
    "R_MERCURY_FUNC_DESC_8_56",
    "R_MERCURY_ABS_PROG_REL32_LO",
    "R_MERCURY_ABS_PROG_REL32_HI",
    "R_MERCURY_PROG_REL8_0",
    "R_MERCURY_PROG_REL8_8",
    "R_MERCURY_PROG_REL8_16",
    "R_MERCURY_PROG_REL8_24",
    "R_MERCURY_PROG_REL8_32",
    "R_MERCURY_PROG_REL8_40",
    "R_MERCURY_PROG_REL8_48",
    "R_MERCURY_PROG_REL8_56",
    "R_MERCURY_UNIFIED",
    "R_MERCURY_UNIFIED_32",
    "R_MERCURY_UNIFIED_8_0",
    "R_MERCURY_UNIFIED_8_8",
    "R_MERCURY_UNIFIED_8_16",
    "R_MERCURY_UNIFIED_8_24",
    "R_MERCURY_UNIFIED_8_32",
    "R_MERCURY_UNIFIED_8_40",
    "R_MERCURY_UNIFIED_8_48",
    "R_MERCURY_UNIFIED_8_56",
    "R_MERCURY_ABS_PROG_REL32",
    "R_MERCURY_ABS_PROG_REL64",
    "R_MERCURY_UNIFIED32_LO",
    "R_MERCURY_UNIFIED32_HI",
    "R_MERCURY_NONE_LAST",
];

/// The name of a relocation type as stored in r_type (R_MERCURY_* at 0x10000 + ordinal).
pub fn name(r_type: u32) -> Option<&'static str> {
    if r_type >= MERCURY_BASE {
        R_MERCURY.get((r_type - MERCURY_BASE) as usize).copied()
    } else {
        R_CUDA.get(r_type as usize).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_on_a_call_instruction_is_as_the_toolkit_writes_it() {
        assert_eq!(unlike_code(cuda::ABS55_16_34, &[0x43, 0x79]), None);
    }

    #[test]
    fn an_immediate_on_an_instruction_other_than_a_move_is_not() {
        let why = unlike_code(cuda::ABS32_HI_32, &[0x81, 0x79]).unwrap();
        assert!(why.contains("opcode 0x981"), "{why}");
    }

    #[test]
    fn a_data_type_in_code_is_not() {
        let why = unlike_code(cuda::R_32, &[0x02, 0x78]).unwrap();
        assert!(
            why.contains("R_CUDA_32 (0x1) is not one the toolkit writes"),
            "{why}"
        );
    }

    #[test]
    fn a_constant_operand_may_sit_on_any_instruction() {
        assert_eq!(unlike_code(cuda::CONST_FIELD19_40, &[0x23, 0x7a]), None);
    }

    #[test]
    fn scheduling_hints_are_yields() {
        assert_eq!(kind(cuda::YIELD_OPCODE9_0), Kind::Yield);
        assert_eq!(kind(cuda::YIELD_CLEAR_PRED4_87), Kind::Yield);
    }

    #[test]
    fn unused_clear_carries_the_width_it_clears() {
        assert_eq!(kind(cuda::UNUSED_CLEAR32), Kind::UnusedClear { width: 4 });
        assert_eq!(kind(cuda::UNUSED_CLEAR64), Kind::UnusedClear { width: 8 });
    }

    #[test]
    fn both_call_encodings_are_calls() {
        assert_eq!(kind(cuda::ABS47_34), Kind::Call);
        assert_eq!(kind(cuda::ABS55_16_34), Kind::Call);
    }

    #[test]
    fn r_cuda_none_is_nothing_to_do() {
        assert_eq!(kind(0), Kind::None);
        assert_eq!(R_CUDA[0], "R_CUDA_NONE");
    }

    #[test]
    fn every_other_type_is_a_value() {
        let special = [
            0,
            cuda::YIELD_OPCODE9_0,
            cuda::YIELD_CLEAR_PRED4_87,
            cuda::UNUSED_CLEAR32,
            cuda::UNUSED_CLEAR64,
            cuda::ABS47_34,
            cuda::ABS55_16_34,
        ];
        for t in (0..R_CUDA.len() as u32).filter(|t| !special.contains(t)) {
            assert_eq!(kind(t), Kind::Value, "{}", R_CUDA[t as usize]);
        }
    }

    #[test]
    fn the_function_table_address_counts_with_calls_for_partial_links() {
        assert!(is_call_or_table_call(cuda::ABS56_16_34));
        assert!(is_call_or_table_call(cuda::ABS47_34));
        assert!(!is_call_or_table_call(cuda::R_64));
    }

    #[test]
    fn unified_addresses_become_plain_ones_without_a_table() {
        assert_eq!(without_unified_table(cuda::UNIFIED, true), None);
        assert_eq!(
            without_unified_table(cuda::UNIFIED, false),
            Some(cuda::R_64)
        );
        assert_eq!(
            without_unified_table(cuda::UNIFIED32_LO_32, true),
            Some(cuda::ABS32_LO_32)
        );
        assert_eq!(
            without_unified_table(cuda::UNIFIED32_HI_32, false),
            Some(cuda::ABS32_HI_32)
        );
        assert_eq!(without_unified_table(cuda::R_64, false), None);
    }

    #[test]
    fn ordinals_match_the_types_seen_in_nvcc_output() {
        assert_eq!(name(2), Some("R_CUDA_64"));
        assert_eq!(name(58), Some("R_CUDA_ABS47_34"));
        assert_eq!(name(75), Some("R_CUDA_ABS55_16_34"));
        assert_eq!(name(102), Some("R_CUDA_UNIFIED"));
        assert_eq!(name(114), Some("R_CUDA_ABS56_16_34"));
        assert_eq!(name(115), Some("R_CUDA_CONST_FIELD22_37"));
        assert_eq!(name(0x10002), Some("R_MERCURY_ABS64"));
        assert_eq!(name(0x10028), Some("R_MERCURY_ABS_PROG_REL32_LO"));
        assert_eq!(name(0x1003d), Some("R_MERCURY_ABS_PROG_REL64"));
        assert_eq!(name(117), None);
        for (t, n) in [
            (cuda::R_32, "R_CUDA_32"),
            (cuda::ABS32_LO_32, "R_CUDA_ABS32_LO_32"),
            (cuda::ABS32_HI_32, "R_CUDA_ABS32_HI_32"),
            (cuda::CONST_FIELD19_40, "R_CUDA_CONST_FIELD19_40"),
            (cuda::BINDLESSOFF14_40, "R_CUDA_BINDLESSOFF14_40"),
            (cuda::CONST_FIELD21_38, "R_CUDA_CONST_FIELD21_38"),
            (cuda::YIELD_OPCODE9_0, "R_CUDA_YIELD_OPCODE9_0"),
            (cuda::YIELD_CLEAR_PRED4_87, "R_CUDA_YIELD_CLEAR_PRED4_87"),
            (cuda::UNUSED_CLEAR32, "R_CUDA_UNUSED_CLEAR32"),
            (cuda::UNUSED_CLEAR64, "R_CUDA_UNUSED_CLEAR64"),
            (cuda::UNIFIED32_LO_32, "R_CUDA_UNIFIED32_LO_32"),
            (cuda::UNIFIED32_HI_32, "R_CUDA_UNIFIED32_HI_32"),
            (mercury::ABS64, "R_MERCURY_ABS64"),
            (mercury::ABS32, "R_MERCURY_ABS32"),
            (mercury::ABS32_LO, "R_MERCURY_ABS32_LO"),
            (mercury::ABS32_HI, "R_MERCURY_ABS32_HI"),
            (mercury::PROG_REL32, "R_MERCURY_PROG_REL32"),
            (mercury::TEX_HEADER_INDEX, "R_MERCURY_TEX_HEADER_INDEX"),
            (mercury::SAMP_HEADER_INDEX, "R_MERCURY_SAMP_HEADER_INDEX"),
            (mercury::SURF_HEADER_INDEX, "R_MERCURY_SURF_HEADER_INDEX"),
            (cuda::TEX_HEADER_INDEX, "R_CUDA_TEX_HEADER_INDEX"),
            (cuda::SAMP_HEADER_INDEX, "R_CUDA_SAMP_HEADER_INDEX"),
            (cuda::SURF_HEADER_INDEX, "R_CUDA_SURF_HEADER_INDEX"),
            (mercury::UNUSED_CLEAR64, "R_MERCURY_UNUSED_CLEAR64"),
            (mercury::UNIFIED, "R_MERCURY_UNIFIED"),
            (mercury::UNIFIED32_LO, "R_MERCURY_UNIFIED32_LO"),
            (mercury::UNIFIED32_HI, "R_MERCURY_UNIFIED32_HI"),
        ] {
            assert_eq!(name(t), Some(n), "{t:#x}");
        }
        assert_eq!(name(0x10041), None);
    }
}
