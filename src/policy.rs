//! The link's modes as policy. `-r`, `-g`, `-preserve-relocs` and the target (sm_90's reserved
//! shared memory, sm_100+'s Mercury half) change many rules; each rule that more than one
//! place follows is named here once, with why, and the passes ask the rule instead of testing
//! the flags. Rules particular to one place stay there, reading `relocatable()` and friends.

/// What the mode of this link is, and the rules that follow from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Policy {
    sm: u32,
    relocatable: bool,
    debug: bool,
    preserve_relocs: bool,
}

impl Policy {
    pub fn new(sm: u32, relocatable: bool, debug: bool, preserve_relocs: bool) -> Self {
        Policy {
            sm,
            relocatable,
            debug,
            preserve_relocs,
        }
    }

    // The mode itself.

    /// The target's SM number (`90` for sm_90a).
    pub fn sm(&self) -> u32 {
        self.sm
    }
    /// `-r`: one relocatable object (ET_REL) for a later link.
    pub fn relocatable(&self) -> bool {
        self.relocatable
    }
    /// `-g` (what `nvcc -G` passes): everything kept for the debugger.
    pub fn debug(&self) -> bool {
        self.debug
    }
    /// `-preserve-relocs`: the relocations the link applies are recorded too.
    pub fn preserve_relocs(&self) -> bool {
        self.preserve_relocs
    }
    /// sm_100 and later: the module carries a Mercury half (the `mercury` pass), and nvlink's
    /// sm_100 conventions apply (section and program-header order, `.strtab`, record order).
    pub fn mercury(&self) -> bool {
        crate::arch::is_mercury_sm(self.sm)
    }

    // The rules.

    /// Final links drop device functions no root reaches. `-r` keeps everything for the final
    /// link; `-g` and `-preserve-relocs` keep it for the debugger and the record.
    pub fn removes_dead_code(&self) -> bool {
        !(self.relocatable || self.debug || self.preserve_relocs)
    }

    /// Internal symbols (shared-memory objects, `_param`) and unreachable functions stay in
    /// the symbol table under `-preserve-relocs` and `-g`.
    pub fn keeps_internal_symbols(&self) -> bool {
        self.preserve_relocs || self.debug
    }

    /// Final links lay shared memory out per kernel and resolve references to it; `-r` merges
    /// the inputs' shared sections by name and keeps the references for the final link.
    pub fn lays_out_shared_memory(&self) -> bool {
        !self.relocatable
    }

    /// Final links write CUDA section and symbol types (and st_other's memory-space bits) as
    /// the driver expects them; `-r` keeps the inputs' for the final link.
    pub fn lowers_cuda_types(&self) -> bool {
        !self.relocatable
    }

    /// Final links propagate registers, stack, barriers and the EXTERNS closure over the call
    /// graph into each kernel's records; `-r` keeps each function's own.
    pub fn propagates_over_call_graph(&self) -> bool {
        !self.relocatable
    }

    /// Final links report names nothing defines; `-r` leaves them to the final link.
    pub fn reports_undefined(&self) -> bool {
        !self.relocatable
    }

    /// An executable (ET_EXEC, with program headers), or a relocatable object (ET_REL).
    pub fn e_type(&self) -> u16 {
        if self.relocatable {
            1
        } else {
            2
        }
    }

    /// Program headers are written for executables only.
    pub fn writes_program_headers(&self) -> bool {
        !self.relocatable
    }

    /// sm_90+ final links make the kernels' parameter banks after an object's debug sections.
    pub fn param_banks_after_debug(&self) -> bool {
        !self.relocatable && self.sm >= 90
    }

    /// Code placed whole in a section of its own is written from its input, not copied into
    /// the module (`Content::Input`). Not from sm_100: the Mercury half reads and rewrites
    /// the code.
    pub fn writes_code_from_input(&self) -> bool {
        !self.mercury()
    }

    /// The shared memory sm_90 and later reserve at the start of every kernel's.
    pub fn shared_reserve(&self) -> u64 {
        if self.sm >= 90 {
            0x400
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_plain_final_link_removes_dead_code() {
        assert!(Policy::new(90, false, false, false).removes_dead_code());
        assert!(!Policy::new(90, true, false, false).removes_dead_code());
        assert!(!Policy::new(90, false, true, false).removes_dead_code());
        assert!(!Policy::new(90, false, false, true).removes_dead_code());
    }

    #[test]
    fn the_mercury_half_starts_at_sm_100() {
        assert!(!Policy::new(90, false, false, false).mercury());
        assert!(Policy::new(100, false, false, false).mercury());
        assert!(Policy::new(120, true, false, false).mercury());
    }

    #[test]
    fn code_is_written_from_its_input_up_to_sm_90_in_every_mode() {
        assert!(Policy::new(90, false, false, false).writes_code_from_input());
        assert!(Policy::new(75, true, true, true).writes_code_from_input());
        assert!(!Policy::new(100, false, false, false).writes_code_from_input());
    }

    #[test]
    fn shared_memory_is_reserved_from_sm_90() {
        assert_eq!(Policy::new(89, false, false, false).shared_reserve(), 0);
        assert_eq!(Policy::new(90, false, false, false).shared_reserve(), 0x400);
    }
}
