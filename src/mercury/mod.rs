//! Pass 6, sm_100+: the Mercury half of the module. It reads the merge's `Placement` and what
//! the relocation pass left for it, and adds to the `Module`.
//!
//! Objects for sm_100 and later carry a second copy of the module for the driver's
//! finalizer: `.nv.capmerc.text.<fn>` code, `.nv.merc.*` metadata and relocations, and a
//! `.nv.merc.symtab` whose entries mirror `.symtab` index for index. nvlink's output keeps
//! that shape: its Mercury symbol table is `.symtab` minus the kernels' parameter-bank section
//! symbols (which come last), entry for entry, so every symbol index the main half uses means
//! the same symbol in the Mercury half. This pass therefore runs after the main half is
//! built and mirrors it:
//! - capsule code starts with the section header index of its main-half `.text` (a u32);
//! - the Mercury sections follow the main half's header order, one per main section that has
//!   a Mercury counterpart in the inputs (`.text.f` ↔ `.nv.capmerc.text.f`, `.nv.constant3`
//!   ↔ `.nv.merc.nv.constant.user`, `X` ↔ `.nv.merc.X`);
//! - `.nv.merc.nv.info`, `.nv.merc.nv.callgraph` and `.nv.merc.nv.prototype` are copies of
//!   the main ones; `.nv.merc.nv.info.<fn>` go through the main records' rules (`info`);
//! - `.nv.merc.nv.global.init` and `.nv.merc.nv.constant.user` share their main twin's bytes;
//! - the Mercury relocations are kept, dropped or applied as their main twins are. The values
//!   the link writes into SASS (constant-bank offsets, shared-memory addresses, texture
//!   slots) go into the capsule code too where it keeps a record of the instruction
//!   (`reloc::capsule`); `-preserve-relocs` records the shared-memory ones in
//!   `.nv.merc.nv.resolvedrela<text>`, as the main half does.
//!
//! The parts follow what each step needs to know. `twins` decides the Mercury sections from
//! the finished main half alone, and places the inputs' Mercury sections into them; `symbols`
//! and `relocs` need where those input sections went, and `relocs` also what the main half's
//! relocation pass decided for each twin relocation (and the values it left for the capsule
//! code). This file keeps the names that tie the halves together, and the order of the steps.

mod literal_banks;
mod relocs;

use crate::relocate::CapsuleValue;
mod symbols;
mod twins;

use crate::diag::{Error, Result};
use crate::elf::names::is_mercury_section;
use crate::merge::literal_banks::MERC_PREFIX;
use crate::merge::Placement;
use crate::output::Module;
use crate::output::OutSec;
use hashbrown::HashMap;

/// Where `place_mercury` put one object's Mercury sections: input section index → (output
/// section, offset in it).
/// The Mercury twin of each main-half section (by main section id).
pub(super) type Twins = crate::ids::IdVec<OutSec, Option<OutSec>>;
type Placements = HashMap<usize, (OutSec, u64)>;

/// The Mercury counterpart's name of a main-half section name.
pub fn mercury_name(main: &[u8]) -> Vec<u8> {
    const BANK: &[u8] = b".nv.constant0.";
    const INDICES: &[u8] = b".nv.constant.entry_image_header_indices.";
    if main.starts_with(b".text.") || main.starts_with(b".nv.uft.rel.") {
        [b".nv.capmerc", main].concat()
    } else if let Some(k) = main.strip_prefix(BANK) {
        // A parameter bank's texture/surface slots: the kernel's image-header index table.
        [b".nv.merc", INDICES, k].concat()
    } else if let Some(k) = main.strip_prefix(b".rela.nv.constant0.") {
        [b".nv.merc.rela", INDICES, k].concat()
    } else if let Some(f) = main.strip_prefix(b".nv.constant2.") {
        // A function's (or kernel's) literal bank (`literal_banks`).
        [MERC_PREFIX, f].concat()
    } else if let Some(f) = main.strip_prefix(b".rela.nv.constant2.") {
        [b".nv.merc.rela", &MERC_PREFIX[b".nv.merc".len()..], f].concat()
    } else if main == b".nv.constant3" {
        b".nv.merc.nv.constant.user".to_vec()
    } else if main == b".rela.nv.constant3" {
        // (`__constant__` data holding addresses)
        b".nv.merc.rela.nv.constant.user".to_vec()
    } else {
        [b".nv.merc", main].concat()
    }
}

/// The main-half name of a Mercury section name (the inverse of `mercury_name`).
fn main_name(merc: &[u8]) -> Vec<u8> {
    if merc == b".nv.merc.nv.constant.user" {
        b".nv.constant3".to_vec()
    } else if merc == b".nv.merc.rela.nv.constant.user" {
        b".rela.nv.constant3".to_vec()
    } else if let Some(f) = merc.strip_prefix(MERC_PREFIX) {
        [b".nv.constant2.", f].concat()
    } else if let Some(f) = merc.strip_prefix(b".nv.merc.rela.nv.constant.optimizer.") {
        [b".rela.nv.constant2.", f].concat()
    } else {
        symbol_name(merc).to_vec()
    }
}

/// The name nvlink gives a Mercury section's symbol: the section name without its
/// `.nv.merc` / `.nv.capmerc` prefix (`.text.f`, `.debug_frame`, `.nv.constant.user`).
fn symbol_name(merc: &[u8]) -> &[u8] {
    merc.strip_prefix(b".nv.capmerc")
        .or_else(|| merc.strip_prefix(b".nv.merc"))
        .unwrap_or(merc)
}

/// Mercury-only inputs this pass understands; anything else is refused.
fn understood(name: &[u8]) -> bool {
    name == b".nv.merc.symtab"
        || name.starts_with(b".nv.capmerc.text.")
        // -r with unified functions and variables: jump slots, tables and data.
        || name.starts_with(b".nv.capmerc.nv.uft.rel.")
        || matches!(
            name,
            b".nv.merc.nv.uft.entry" | b".nv.merc.nv.udt.entry" | b".nv.merc.nv.udt"
        )
        || name.starts_with(b".nv.merc.rela")
        || name.starts_with(b".nv.merc.nv.info")
        || matches!(
            name,
            b".nv.merc.nv.callgraph"
                | b".nv.merc.nv.prototype"
                | b".nv.merc.nv.global.init"
                | b".nv.merc.nv.constant.user"
        )
        || name.starts_with(b".nv.merc.nv.shared.reserved.")
        // Functions' literal banks (`literal_banks`).
        || name.starts_with(MERC_PREFIX)
        || name.starts_with(b".nv.merc.debug_")
        || name.starts_with(b".nv.merc.nv_debug_")
}

fn not_yet(what: String) -> Error {
    Error::not_implemented(what)
}

/// Refuses Mercury sections this stage does not know how to carry over, rather than leaving
/// them out of the output.
fn refuse_unknown(objects: &[crate::object::InputObject<'_>]) -> Result<()> {
    for o in objects {
        for s in &o.cubin.sections {
            if is_mercury_section(s.name) && !understood(s.name) {
                return Err(not_yet(format!(
                    "'{}': the Mercury section '{}'",
                    o.name,
                    s.name_str()
                )));
            }
        }
    }
    Ok(())
}

/// sm_100+: builds the Mercury half from the finished main half: the placement says where
/// the inputs went, `capsule_values` are what the main half's relocation wrote into SASS,
/// `function_info` the Mercury copies of `.nv.info.<fn>`.
pub(crate) fn build(
    p: &Placement<'_, '_>,
    m: &mut Module,
    capsule_values: Vec<CapsuleValue>,
    function_info: Vec<(Vec<u8>, crate::output::Content)>,
) -> Result<()> {
    Mercury { p, m }.build(capsule_values, function_info)
}

/// The Mercury half at work: it reads the placement and adds to the module.
pub(crate) struct Mercury<'r, 'a, 'data> {
    pub(crate) p: &'r Placement<'a, 'data>,
    pub(crate) m: &'r mut Module,
}

impl Mercury<'_, '_, '_> {
    fn build(
        &mut self,
        capsule_values: Vec<CapsuleValue>,
        function_info: Vec<(Vec<u8>, crate::output::Content)>,
    ) -> Result<()> {
        refuse_unknown(self.p.objects)?;
        // The sections first: every later step names them by their main twins.
        let twin = self.make_twins(function_info)?;
        let placed = self.place_mercury(&twin)?;
        // Then what refers to where the inputs' sections went.
        self.mercury_symbols(&twin, &placed)?;
        self.relocate_mercury(&twin, &placed)?;
        self.relocate_merc_literal_banks(&twin)?;
        // Values the main half's relocation pass left for the Mercury half.
        self.patch_capsules(&placed, capsule_values)?;
        self.image_header_indices(&twin);
        // Last, what looks at the filled relocation sections and `.debug_frame`.
        self.keep_emptied_main_relocs(&twin);
        self.merc_debug_frame(&twin);
        Ok(())
    }
}
