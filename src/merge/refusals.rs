//! Inputs the merge refuses rather than link differently from nvlink: shared-memory layouts
//! of partial links nvlink's -r redoes its own way, sm_90 shared memory only dead code uses, and
//! sm_100+ kernels nvlink re-finalizes (`-G`). Each names the file and the construct.

use super::Options;
use crate::diag::{Error, Result};
use crate::elf::read::SymSection;
use crate::elf::*;
use crate::liveness::Liveness;
use crate::object::{InputObject, SectionKind};

/// Under -r, an input from a partial link whose `.nv_debug.shared` defines extern arrays and
/// holds functions' static objects too (which nvlink's `-r` pads, see partial_shared.rs),
/// beside another input's `.nv_debug.shared`: nvlink sizes that section anew, by a rule not
/// known here: refused. (Finished by a final link, such an input links as nvlink links it:
/// shared.rs, resolve_instances; testdata shared_pool_align, extern_shared_align.)
pub(super) fn refuse_padded_partial_debug_shared(
    objects: &[InputObject<'_>],
    opts: &Options,
) -> Result<()> {
    if !opts.policy.relocatable() {
        return Ok(());
    }
    // (Parsing made sure the section is shared memory, so one of the few sections of kind
    // Other: the scan reads a byte a section, not every section's header, serially.)
    let debug_of = |o: &InputObject<'_>| {
        o.sections_of(SectionKind::Other)
            .find(|(_, s)| s.name == b".nv_debug.shared")
            .map(|(si, _)| si)
    };
    let debug: Vec<Option<usize>> = objects.iter().map(debug_of).collect();
    if debug.iter().flatten().count() < 2 {
        return Ok(());
    }
    for (o, si) in objects.iter().zip(debug) {
        let Some(si) = si else {
            continue;
        };
        let in_debug = |x: &Symbol<'_>| x.section == SymSection::Index(si as u32);
        let arrays = o.symbols().iter().any(|x| {
            in_debug(x) && x.size == 0 && x.bind != STB_LOCAL && x.other & STO_CUDA_SHARED != 0
        });
        let objs = o
            .symbols()
            .iter()
            .any(|x| in_debug(x) && x.size > 0 && x.st_type != STT_SECTION);
        if arrays && objs {
            return Err(Error::not_implemented(format!(
                "'{}': a partial link's .nv_debug.shared holding both extern __shared__ arrays \
                 and functions' static __shared__ objects, linked -r with another object's \
                 .nv_debug.shared",
                o.name,
            )));
        }
    }
    Ok(())
}

/// sm_100+ final links without -g: nvlink re-finalizes every kernel that calls nothing
/// (black-box: docs/research/sm100-rescheduling.md, and below). Where that changes only
/// scheduling bits cubin-ld keeps ptxas's code (docs/differences.md); where it changes
/// instructions `refinalize` edits the inputs as nvlink does (fence preambles, -G code's
/// `MEMBAR.SC.VC` before each exit, the debugger's barriers of a `-r -g` output); a kernel
/// still holding them here came from a system library (decompressed after that pass), and
/// is refused rather than linked otherwise.
///
/// (It cuts removed functions out of line tables as nvlink does: `line_tables`.)
pub(super) fn refuse_refinalized_kernels(
    objects: &[InputObject<'_>],
    liveness: &Liveness,
    opts: &Options,
) -> Result<()> {
    if !opts.policy.mercury() || opts.policy.debug() || opts.policy.relocatable() {
        return Ok(());
    }
    let debug_link = objects.iter().any(|o| o.has_section(b".debug_info"));
    for &(oi, si) in &liveness.kernels {
        let o = &objects[oi];
        let kernel = String::from_utf8_lossy(o.cubin.sections[si].name);
        let kernel = kernel.trim_start_matches(".text.");
        // (`refinalize` removed them from the inputs it could edit: what is left came from
        // a system library, decompressed later.)
        let text = o.cubin.sections[si].bytes();
        if let Some(what) = crate::refinalize::still_to_remove(text, debug_link) {
            return Err(Error::not_implemented(format!(
                "'{}': kernel '{kernel}' holds `{what}`; nvlink re-finalizes such sm_100+ \
                 kernels and removes these instructions, moving the code after them. \
                 Removing them from a system library's kernel",
                o.name,
            )));
        }
    }
    Ok(())
}
