//! The scheduling control bits of a Volta-and-later SASS instruction, in its high 64-bit
//! word: vocabulary for the passes that edit code (`refinalize`) and for the comparison
//! that leaves scheduling out (`compare`).

/// The yield bit.
pub const YIELD: u64 = 1 << 45;

/// Where the stall count (4 bits) lies.
pub const STALL_SHIFT: u32 = 41;

/// The wait mask (bits 52–57).
pub const WAIT_MASK: u64 = 0x3f << 52;

/// The instruction's stall count, in cycles.
pub fn stall(hi: u64) -> u64 {
    (hi >> STALL_SHIFT) & 0xf
}

/// The most cycles an instruction can stall: 11 with the yield bit, 14 without (the
/// encodings ptxas writes; nvdisasm calls a yield with 12–15 cycles, or none, undefined).
pub fn most_stall(hi: u64) -> u64 {
    if hi & YIELD != 0 {
        11
    } else {
        14
    }
}

/// Whether the stall and yield bits are an encoding the hardware knows (see `most_stall`).
pub fn is_defined(hi: u64) -> bool {
    hi & YIELD == 0 || (1..=most_stall(hi)).contains(&stall(hi))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_yield_holds_one_to_eleven_cycles() {
        let yielding = |cycles: u64| YIELD | (cycles << STALL_SHIFT);
        assert!(is_defined(yielding(11)) && is_defined(yielding(1)));
        assert!(!is_defined(yielding(12)) && !is_defined(yielding(0)));
        assert!(is_defined(15 << STALL_SHIFT) && is_defined(0));
    }
}
