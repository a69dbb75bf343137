//! Inputs the merge refuses rather than link differently from nvlink: shared-memory layouts
//! of partial links nvlink redoes its own way, sm_90 shared memory only dead code uses, and
//! sm_100+ kernels nvlink re-finalizes (`-G`). Each names the file and the construct.

use super::{shared, Options};
use crate::diag::{Error, Result};
use crate::elf::read::SymSection;
use crate::elf::*;
use crate::liveness::Liveness;
use crate::object::{InputObject, SectionKind};

/// An input from a partial link whose `.nv_debug.shared` defines extern arrays and holds
/// functions' static objects too (which nvlink's `-r` pads, see partial_shared.rs): nvlink
/// lays those objects out again differently when it finishes such an input with a pool of
/// objects (testdata shared_pool_align: the round trip puts f_home's object at 0x40), and
/// sizes `.nv_debug.shared` anew when such an input meets another one's under `-r`; cubin-ld
/// follows neither: refused.
pub(super) fn refuse_padded_partial_debug_shared(
    objects: &[InputObject<'_>],
    layout: &shared::SharedLayout,
    opts: &Options,
) -> Result<()> {
    // (Parsing made sure the section is shared memory, so one of the few sections of kind
    // Other: the scan reads a byte a section, not every section's header, serially.)
    let debug_of = |o: &InputObject<'_>| {
        o.sections_of(SectionKind::Other)
            .find(|(_, s)| s.name == b".nv_debug.shared")
            .map(|(si, _)| si)
    };
    let debug: Vec<Option<usize>> = objects.iter().map(debug_of).collect();
    let with_debug = debug.iter().flatten().count();
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
        if !(arrays && objs) {
            continue;
        }
        let refused = if opts.policy.relocatable() {
            with_debug > 1
        } else {
            layout.pool_align > 0 && layout.extern_align > 0
        };
        if refused {
            return Err(Error::not_implemented(format!(
                "'{}': a partial link's .nv_debug.shared holding both extern __shared__ arrays \
                 and functions' static __shared__ objects, {}",
                o.name,
                if opts.policy.relocatable() {
                    "linked -r with another object's .nv_debug.shared"
                } else {
                    "finished with some of those objects in no kernel or in several"
                }
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
