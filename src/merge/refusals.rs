//! Inputs the merge refuses rather than link differently from nvlink: sm_90 shared memory
//! only dead code uses, and sm_100+ kernels nvlink re-finalizes (`-G`). Each names the file
//! and the construct.

use super::Options;
use crate::diag::{Error, Result};
use crate::liveness::Liveness;
use crate::object::InputObject;

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
        let mbarriers = crate::refinalize::has_mbarriers(&o.cubin, o.cubin.sections[si].name);
        if let Some(what) = crate::refinalize::still_to_remove(text, debug_link, mbarriers) {
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
