//! sm_100+ `.nv_debug_info_reg_sass` (code compiled with `-G`): where each function keeps
//! its PTX registers. One record per function: its name, a u32 count, then that many
//! entries (u32, register name, u16, u8, u8, u32 start, u32 end: a code range).
//!
//! Observed from nvlink 13.5 (black-box, sm_100/sm_120; testdata line_table_cut_g, found by
//! scripts/fuzz-equiv seeds 5 and 8): the records of the functions a link removes (unreachable
//! ones in a final link, and in every link the copies of weak functions discarded for an
//! earlier object's) stay, with every entry's range zeroed; the rest is copied as it is.
//! sm_75–sm_90 keep the ranges. The section has no relocations: records are found by name.
//! Anything that does not parse as such records is refused when a range would have to go.

use super::Builder;
use crate::diag::{Error, Result};
use crate::elf::read::SymSection;
use crate::elf::*;
use crate::output::{Content, OutSec};

const NAME: &[u8] = b".nv_debug_info_reg_sass";

use crate::elf::reg_sass::records;

impl Builder<'_, '_> {
    /// sm_100+: zeroes the code ranges of removed functions in the output's
    /// `.nv_debug_info_reg_sass` (see the module comment).
    pub(crate) fn clear_removed_reg_sass(&mut self) -> Result<()> {
        if !self.m.mercury {
            return Ok(());
        }
        let mut zero: Vec<(OutSec, usize)> = Vec::new();
        // Names earlier objects' records have: a local function of the same name in a later
        // object (`__dAtomicAdd`, which -G code of every file using a double atomicAdd
        // holds) loses its ranges as a removed one would (black-box: testdata
        // debug_local_names).
        let mut named: hashbrown::HashSet<&[u8]> = hashbrown::HashSet::new();
        for (oi, o) in crate::object::enumerated(self.p.objects) {
            let Some(si) = o.cubin.sections.iter().position(|s| s.name == NAME) else {
                continue;
            };
            let Some(at) = self.p.placed[oi][si] else {
                continue;
            };
            // The object's functions the link removes, and its local ones named before, each
            // as its name and which of the object's functions of that name it is (a partial
            // link's output holds every file's copy of a local function: `__assert_fail`).
            let mut copies: hashbrown::HashMap<&[u8], usize> = hashbrown::HashMap::new();
            let mut removed: Vec<(&[u8], usize)> = Vec::new();
            for (i, s) in o.symbols().iter().enumerate() {
                if s.st_type != STT_FUNC || !matches!(s.section, SymSection::Index(_)) {
                    continue;
                }
                let copy = next_copy(&mut copies, s.name);
                if self.p.removed_function(oi, i as u32, true)
                    || self.p.discarded_copy(oi, i as u32, true)
                    || (s.bind == STB_LOCAL && named.contains(s.name))
                {
                    removed.push((s.name, copy));
                }
            }
            let parsed = records(o.cubin.sections[si].bytes());
            if let Ok(recs) = &parsed {
                named.extend(recs.iter().map(|r| r.name));
            }
            if removed.is_empty() {
                continue;
            }
            let refuse = |what: String| {
                Error::not_implemented(format!(
                    "'{}': section '{}': {what}; clearing a removed function's entries in such \
                     a section",
                    o.name,
                    String::from_utf8_lossy(NAME)
                ))
            };
            let recs = parsed.map_err(refuse)?;
            // The k-th record of a name is the k-th function of that name (nvlink clears the
            // removed copy's alone: black-box, sm_100: fuzz-equiv seed 45, a partial link
            // of two files that include <cassert>, finished; testdata
            // reg_sass_local_copies_finished).
            // A partial link's output also keeps, after the kept copy's, the records of the
            // weak copies it discarded (their ranges zeroed): one function of a name with
            // several records owns them all (black-box, sm_100/sm_120: two -G objects'
            // libcu++ pipeline templates, partially linked, finished; fuzz-equiv seed 8,
            // testdata reg_sass_weak_copies_finished).
            let mut total: hashbrown::HashMap<&[u8], usize> = hashbrown::HashMap::new();
            for r in &recs {
                *total.entry(r.name).or_default() += 1;
            }
            let sole = |name: &[u8]| copies.get(name) == Some(&1);
            let mut seen: hashbrown::HashMap<&[u8], usize> = hashbrown::HashMap::new();
            for r in &recs {
                let copy = next_copy(&mut seen, r.name);
                let copy = if sole(r.name) { 0 } else { copy };
                if removed.contains(&(r.name, copy)) {
                    zero.extend(r.ranges.iter().map(|&f| (at.sec, at.offset as usize + f)));
                }
            }
            if let Some((name, _)) = removed.iter().find(|(name, _)| {
                !sole(name) && total.get(name).is_some_and(|n| copies.get(name) != Some(n))
            }) {
                return Err(refuse(format!(
                    "the records of '{}' do not pair one to one with its functions",
                    String::from_utf8_lossy(name)
                )));
            }
        }
        for (sec, f) in zero {
            if let Content::Bytes(b) = &mut self.m.sections[sec].content {
                if let Some(x) = b.get_mut(f..f + 8) {
                    x.fill(0);
                }
            }
        }
        Ok(())
    }
}

/// Which occurrence of `name` this is (0 for the first), counted in `counts`.
fn next_copy<'a>(counts: &mut hashbrown::HashMap<&'a [u8], usize>, name: &'a [u8]) -> usize {
    let n = counts.entry(name).or_default();
    *n += 1;
    *n - 1
}
