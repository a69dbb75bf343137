//! Pass 5: the relocations of the main half, over the merged module. Each input relocation of
//! a kept section is classified — dropped, a field cleared, a value the link applies, or kept
//! for the driver (under `-r`: for the final link) — and then carried out. It reads only the
//! merge's `Placement` and writes only the `Module`. Where a relocation goes is decided by
//! its kind first (`reloc::table::kind`), then by `Relocator::fate` from its symbol; its value
//! by what the symbol is (`Relocator::value`); the bits it writes by `reloc::patch`; the order
//! of the output relocation sections by `finish_sections`. Code the module names rather than
//! holds (`Content::Input`) is patched in an overlay of the words written (`patch::Overlay`),
//! and keeps the words that changed.

use crate::diag::{Error, Result};
use crate::elf::read::{Reloc, Section, SymSection, Symbol};
use crate::elf::*;
use crate::ids::ObjectId;
use crate::merge::{local_names, shared, Placed, Placement};
use crate::object::{InputObject, SectionKind};
use crate::output::*;
use crate::reloc::patch::{self, Overlay, Slots};
use crate::reloc::table;
use crate::resolve::UNIFIED_PLACEHOLDERS;
use hashbrown::HashMap;

/// The output relocation sections, by name, with their entries in reading order.
struct OutRelocs {
    sections: Vec<OutRelocSection>,
    /// Where the module has a section of the name already (the merge reserved most): by that
    /// section, a dense table (its index in `sections` plus one; 0: none yet) rather than a
    /// hash map of a hundred thousand sections, which missed the cache at every site (the
    /// serial gathering 8.4 -> 5.2 ms at wide-1600); the others by name.
    by_section: crate::ids::IdVec<OutSec, u32>,
    by_name: HashMap<Vec<u8>, usize>,
}

struct OutRelocSection {
    /// The module's section of this name, or the name of the one to make.
    out: std::result::Result<OutSec, Vec<u8>>,
    target: OutSec,
    sh_type: u32,
    /// Each site's entries, in reading order (joined by `finish_sections`, in parallel).
    entries: Vec<Vec<OutReloc>>,
}

/// Where a site's entries go: the module's section of that name (looked up while sites are
/// worked through in parallel), else the name.
type Dest<'s> = std::result::Result<OutSec, &'s [u8]>;

impl OutRelocs {
    /// The entries of the section `dest` names, made (empty) on first use.
    fn entries(&mut self, dest: Dest<'_>, target: OutSec, sh_type: u32) -> &mut Vec<Vec<OutReloc>> {
        let found = match dest {
            Ok(id) => self.by_section[id].checked_sub(1).map(|k| k as usize),
            Err(name) => self.by_name.get(name).copied(),
        };
        let k = match found {
            Some(k) => k,
            None => {
                let k = self.sections.len();
                match dest {
                    Ok(id) => self.by_section[id] = k as u32 + 1,
                    Err(name) => {
                        self.by_name.insert(name.to_vec(), k);
                    }
                };
                self.sections.push(OutRelocSection {
                    out: dest.map_err(|name| name.to_vec()),
                    target,
                    sh_type,
                    entries: Vec::new(),
                });
                k
            }
        };
        &mut self.sections[k].entries
    }

    /// One input relocation section's output entries. Each output section is made where its
    /// first entry comes, as one thread meets them; the entries are moved, not copied.
    fn add_site(&mut self, site: &Site<'_, '_>, o: &mut SiteOut) {
        let (kept, recorded) = (std::mem::take(&mut o.kept), std::mem::take(&mut o.recorded));
        let (kept_in, recorded_in) = (o.kept_in, o.recorded_in);
        let mut add = |recorded_section: bool, entries: Vec<OutReloc>| {
            if entries.is_empty() {
                return;
            }
            let all = match recorded_section {
                true => {
                    let name = site.resolved_name();
                    let dest = recorded_in.ok_or(&name[..]);
                    self.entries(dest, site.tp.sec, SHT_CUDA_RESOLVED_RELA)
                }
                false => {
                    let dest = kept_in.ok_or(site.s.name);
                    self.entries(dest, site.tp.sec, site.s.sh_type)
                }
            };
            all.push(entries);
        };
        if o.recorded_first {
            add(true, recorded);
            add(false, kept);
        } else {
            add(false, kept);
            add(true, recorded);
        }
    }
}

/// sm_100+: a value the link wrote into SASS code, to be written into the capsule Mercury
/// code too: (object, input `.text` section, offset in it, relocation type, value).
pub(crate) type CapsuleValue = (ObjectId, usize, u64, u32, u64);

/// What the main half's relocation pass leaves for the Mercury half.
#[derive(Default)]
pub(crate) struct Relocated {
    /// Fields UNUSED_CLEAR relocations cleared (section, offset): the `.debug_frame` entries
    /// of removed functions.
    pub cleared: Vec<(OutSec, u64)>,
    pub capsule_values: Vec<CapsuleValue>,
}

/// The bytes a group of relocation sections patches: taken out of the module while they
/// are patched, or code written from its input (`Content::Input`).
enum Target<'i> {
    None,
    Bytes(Vec<u8>),
    Input(&'i [u8]),
}

/// One input relocation section, and the section it relocates.
struct Site<'a, 'data> {
    oi: ObjectId,
    o: &'a InputObject<'data>,
    /// The relocation section.
    s: &'a Section<'data>,
    /// The section it relocates, and where that went.
    target: usize,
    tsec: &'a Section<'data>,
    tp: Placed,
}

impl Site<'_, '_> {
    /// -preserve-relocs records what it applies in `.nv.resolvedrela<target>`.
    fn resolved_name(&self) -> Vec<u8> {
        [b".nv.resolvedrela", local_names::real_name(self.tsec.name)].concat()
    }

    fn alloc(&self) -> bool {
        self.tsec.flags & SHF_ALLOC != 0
    }

    fn code(&self) -> bool {
        self.tsec.flags & SHF_EXECINSTR != 0
    }
}

/// What becomes of one relocation that is not dropped by its kind.
enum Fate {
    /// Nothing is written or kept.
    Drop,
    /// The field gets a texture/surface slot.
    Slot(u64),
    /// The link applies the value (and -preserve-relocs may record it, with this addend).
    Apply(u64, i64),
    /// The output keeps it for the driver (or the final link), with this addend.
    Keep(i64),
}

/// What one relocation section's entries produce besides the bytes they patch, gathered
/// while sections are relocated in parallel and taken in input order afterwards.
#[derive(Default)]
struct SiteOut {
    /// Output relocations kept for the driver, and those recorded in
    /// `.nv.resolvedrela<target>` (-preserve-relocs), each in order; which came first.
    kept: Vec<OutReloc>,
    recorded: Vec<OutReloc>,
    recorded_first: bool,
    cleared: Vec<(OutSec, u64)>,
    capsule_values: Vec<CapsuleValue>,
    /// Symbols that get a value (`.nv.ptx.const0.size`).
    values: Vec<(OutSym, u64)>,
    /// The module's sections for `kept` and `recorded`, where it has them already.
    kept_in: Option<OutSec>,
    recorded_in: Option<OutSec>,
}

impl SiteOut {
    fn is_empty(&self) -> bool {
        self.kept.is_empty()
            && self.recorded.is_empty()
            && self.cleared.is_empty()
            && self.capsule_values.is_empty()
            && self.values.is_empty()
    }
}

/// One site's products as gathered. Most sites produce nothing but the bytes they patch,
/// and a large link has a hundred thousand: kept inline, their empty products were a tenth
/// of the link's memory while the pass ran.
type Outcome = std::result::Result<Option<Box<SiteOut>>, Box<Error>>;

/// The input relocation sections that patch one output section (by their index among the
/// sites, in input order), its bytes, and where their outcomes go.
type Group<'i, 'g> = (OutSec, Target<'i>, &'g [u32], &'g mut [Option<Outcome>]);

/// The words a group changed in code written from its input.
type Changed = Option<Vec<(u32, [u8; 8])>>;

/// A value the link wrote: what the field held, what was added, and the addend.
struct Applied {
    old: u64,
    v: u64,
    addend: i64,
}

/// Applies the main half's relocations to the merged module: the placement says where every
/// input section and symbol went; the module gets the patched bytes and the relocation
/// sections.
///
/// A relocation section patches only the section it relocates, so the input relocation
/// sections are worked through in parallel, grouped by the output section they patch (each
/// group in input order, over bytes taken out of the module meanwhile); what else they
/// produce is gathered in input order, as one thread would.
pub(crate) fn relocate(
    p: &Placement<'_, '_>,
    m: &mut Module,
    pages: &crate::input::files::Pages<'_>,
) -> Result<Relocated> {
    use rayon::prelude::*;
    let sites = sites(p);
    let const3_size = m
        .section_named(b".nv.constant3")
        .map(|c| m.sections[c].content.size());
    // Sites grouped by the section they patch (counting: one list, each group's sites in
    // input order, no list per group). Each group writes its sites' outcomes into its own
    // stretch of `outcomes`, which is thus in `grouped`'s order, not the sites'.
    let (grouped, start) =
        crate::ids::grouped_indices(m.sections.len(), &sites, |s| s.tp.sec.index());
    let mut outcomes: Vec<Option<Outcome>> = (0..sites.len()).map(|_| None).collect();
    let mut groups: Vec<Group<'_, '_>> = Vec::with_capacity(sites.len());
    let mut rest: &mut [Option<Outcome>] = &mut outcomes;
    for (sec, w) in m.sections.ids().zip(start.windows(2)) {
        let (from, to) = (w[0] as usize, w[1] as usize);
        if from == to {
            continue;
        }
        let target = match &mut m.sections[sec].content {
            Content::Bytes(b) => Target::Bytes(std::mem::take(b)),
            Content::Input(i) => {
                Target::Input(p.objects[i.object].cubin.sections[i.section as usize].bytes())
            }
            _ => Target::None,
        };
        let (mine, after) = std::mem::take(&mut rest).split_at_mut(to - from);
        rest = after;
        groups.push((sec, target, &grouped[from..to], mine));
    }
    let r = Relocator { p, m, const3_size };
    // (Code written from its input is patched in an overlay of the words written, which
    // keeps the words that changed.)
    let work = |(_, target, members, outcomes): &mut Group<'_, '_>| {
        let mut overlay = match target {
            Target::Input(input) => Some(Overlay::new(input)),
            _ => None,
        };
        let mut bytes: Option<&mut dyn Slots> = match (target, &mut overlay) {
            (_, Some(o)) => Some(o),
            (Target::Bytes(b), None) => Some(b),
            _ => None,
        };
        for (&k, outcome) in members.iter().zip(outcomes.iter_mut()) {
            let site = &sites[k as usize];
            let res = match r.relocate_section(site, bytes.as_deref_mut()) {
                Ok(o) if o.is_empty() => Ok(None),
                Ok(mut o) => {
                    // (Most were reserved by the creation pass; the others are looked up
                    // by name.)
                    let reserved = r.p.reserved_relocs(site.oi, site.s.index);
                    if !o.kept.is_empty() {
                        o.kept_in = reserved
                            .map(|x| x.kept)
                            .or_else(|| r.m.section_named(site.s.name));
                    }
                    if !o.recorded.is_empty() {
                        o.recorded_in = reserved
                            .and_then(|x| x.recorded)
                            .or_else(|| r.m.section_named(&site.resolved_name()));
                    }
                    Ok(Some(Box::new(o)))
                }
                Err(e) => Err(Box::new(e)),
            };
            let failed = res.is_err();
            *outcome = Some(res);
            if failed {
                break;
            }
        }
        overlay.map(Overlay::into_changed)
    };
    // The code written from its input goes a chunk at a time, its files given back after
    // each; the other groups (a `.debug_frame` gathered from every object is one, and long)
    // meanwhile, not between two chunks.
    let n_code = groups
        .iter()
        .filter(|(_, target, _, _)| matches!(target, Target::Input(_)))
        .count();
    let mut code: Vec<Group<'_, '_>> = Vec::with_capacity(n_code);
    let mut other: Vec<Group<'_, '_>> = Vec::with_capacity(groups.len() - n_code);
    for g in groups {
        match g.1 {
            Target::Input(_) => code.push(g),
            _ => other.push(g),
        }
    }
    // (On one thread the other groups go first: they read every file, which the code's
    // chunks then give back as they go, not before.)
    let (other_done, code_done) = rayon::join(
        || -> Vec<Changed> { other.par_iter_mut().map(work).collect() },
        || {
            let mut done: Vec<Changed> = Vec::with_capacity(code.len());
            // (A chunk's files are given back while the next chunk is patched.)
            let mut patched: Option<Vec<usize>> = None;
            for chunk in code.chunks_mut(GROUPS_PER_RELEASE) {
                let (_, changed) = rayon::join(
                    || patched.take().map(|files| pages.give_back_files(&files)),
                    || -> Vec<Changed> { chunk.par_iter_mut().map(work).collect() },
                );
                done.extend(changed);
                patched = Some(input_code(chunk));
            }
            if let Some(files) = patched {
                pages.give_back_files(&files);
            }
            done
        },
    );
    let groups = code.into_iter().chain(other);
    let changes = code_done.into_iter().chain(other_done);
    for ((sec, target, _, _), changed) in groups.zip(changes) {
        match (target, &mut m.sections[sec].content) {
            (Target::Bytes(bytes), content) => *content = Content::Bytes(bytes),
            (Target::Input(_), Content::Input(i)) => i.changed = changed.unwrap_or_default(),
            _ => {}
        }
    }
    // (A site's place in `grouped`, where its outcome is.)
    let mut place = vec![0u32; sites.len()];
    for (at, &k) in grouped.iter().enumerate() {
        place[k as usize] = at as u32;
    }
    let mut out = OutRelocs {
        // (About one a site: grown from empty, the table was copied 13 times at wide-400.)
        sections: Vec::with_capacity(sites.len()),
        by_section: crate::ids::IdVec::filled(0, m.sections.len()),
        by_name: HashMap::new(),
    };
    let mut done = Relocated::default();
    // (Each site's products, in input order: one thread.)
    let gather = tracing::info_span!("gather").entered();
    for (site, &at) in sites.iter().zip(&place) {
        // (A group stops at its first error; an earlier site's error is the one reported.)
        let Some(res) = outcomes[at as usize].take() else {
            continue;
        };
        let Some(mut o) = res.map_err(|e| *e)? else {
            continue;
        };
        out.add_site(site, &mut o);
        done.cleared.extend(o.cleared);
        done.capsule_values.extend(o.capsule_values);
        for (sym, v) in o.values {
            m.symbols[sym].value = v;
        }
    }
    drop(gather);
    let _sections = tracing::info_span!("sections").entered();
    finish_sections(m, out);
    Ok(done)
}

/// Relocation groups worked through between two givings-back of the input files whose code
/// they patched (code written from its input: `Content::Input`). The pages read meanwhile
/// are the files' whole (the kernel maps the pages around each one read, and an object
/// file is a few of those windows): keeping them all to the end of the pass was a large
/// link's peak of memory. The writer reads the code again.
const GROUPS_PER_RELEASE: usize = 4096;

/// Where the code of `groups` written from its input lies (an address in it each).
fn input_code(groups: &[Group<'_, '_>]) -> Vec<usize> {
    groups
        .iter()
        .filter_map(|(_, target, _, _)| match target {
            Target::Input(input) => Some(input.as_ptr() as usize),
            _ => None,
        })
        .collect()
}

/// The input relocation sections of kept sections whose targets were placed, in input order
/// (each object's found in parallel).
fn sites<'a, 'data>(p: &'a Placement<'_, 'data>) -> Vec<Site<'a, 'data>> {
    let per_object = crate::object::par_map(p.objects, |oi| {
        let o = &p.objects[oi];
        let mut sites = Vec::with_capacity(o.count_of(SectionKind::Reloc));
        for (si, s) in o.sections_of(SectionKind::Reloc) {
            if !p.live[oi][si] {
                continue;
            }
            let target = s.info as usize;
            let Some(tp) = p.placed[oi].get(target).copied().flatten() else {
                continue;
            };
            let tsec = &o.cubin.sections[target];
            sites.push(Site {
                oi,
                o,
                s,
                target,
                tsec,
                tp,
            });
        }
        sites
    });
    per_object.into_iter().flatten().collect()
}

/// Reads the placement and the module; writes only the bytes of the section it is given.
struct Relocator<'r, 'a, 'data> {
    p: &'r Placement<'a, 'data>,
    m: &'r Module,
    /// `.nv.constant3`'s size, taken before its bytes may be out for patching.
    const3_size: Option<u64>,
}

impl Relocator<'_, '_, '_> {
    /// One input relocation section; `bytes` are its target's (None: it has none to patch).
    fn relocate_section(
        &self,
        site: &Site<'_, '_>,
        mut bytes: Option<&mut (dyn Slots + '_)>,
    ) -> Result<SiteOut> {
        let (o, s, tsec) = (site.o, site.s, site.tsec);
        let relocs = o
            .cubin
            .relocations(s)
            .map_err(|e| e.context(format!("'{}'", o.name)))?;
        // (Most sites keep most of their entries for the driver: room for all of them at
        // once, not grown by doubling.)
        let mut done = SiteOut {
            kept: Vec::with_capacity(relocs.len()),
            ..SiteOut::default()
        };
        // The extents of weak data objects this link discarded for another object's
        // copy (a virtual table every file defines): their bytes stay, but nvlink
        // leaves their addresses unrelocated.
        let discarded: Vec<(u64, u64)> = if site.alloc() && !site.code() {
            self.p.discarded_weak_data(site.oi, site.target)
        } else {
            Vec::new()
        };
        for (i, r) in relocs.iter().enumerate() {
            let mut r = r;
            // (sm_100+ line tables move their sequences and cut some out.)
            match self.p.line_table_offset(site.oi, site.target, r.offset) {
                Some(off) => r.offset = off,
                None => continue,
            }
            if discarded.iter().any(|&(a, e)| (a..e).contains(&r.offset)) {
                continue;
            }
            if r.offset >= tsec.size {
                return Err(Error::new(format!(
                    "'{}': relocation section '{}' entry {i}: offset {:#x} is past the end \
                     of '{}' (size {:#x})",
                    o.name,
                    s.name_str(),
                    r.offset,
                    tsec.name_str(),
                    tsec.size
                )));
            }
            self.relocate_one(site, i, &r, bytes.as_deref_mut(), &mut done)?;
        }
        Ok(done)
    }

    fn relocate_one(
        &self,
        site: &Site<'_, '_>,
        i: usize,
        r: &Reloc,
        bytes: Option<&mut (dyn Slots + '_)>,
        done: &mut SiteOut,
    ) -> Result<()> {
        let isym = &site.o.symbols()[r.sym as usize];
        match table::kind(r.r_type) {
            table::Kind::None | table::Kind::Yield => return Ok(()),
            table::Kind::UnusedClear { width } => {
                self.unused_clear(site, r, isym, width, bytes, &mut done.cleared);
                return Ok(());
            }
            table::Kind::Call | table::Kind::Value => {}
        }
        let Some((fate, shared_ref)) = self.fate(site, i, r, isym, &mut done.values)? else {
            return Ok(());
        };
        let offset = r.offset + site.tp.offset;
        match fate {
            Fate::Drop => {}
            Fate::Slot(slot) => self.write_slot(site, r, slot, bytes, &mut done.capsule_values)?,
            Fate::Apply(v, addend) => {
                if let Some(old) = self.apply(site, r, v, bytes, &mut done.capsule_values)? {
                    // -preserve-relocs records what was applied.
                    let applied = Applied { old, v, addend };
                    self.record_applied(site, r, isym, shared_ref, applied, done);
                }
            }
            Fate::Keep(addend) => {
                let sym = if r.sym == 0 {
                    None
                } else {
                    self.p
                        .partial_instance(site.oi, site.target, isym)
                        .or_else(|| self.p.out_sym(site.oi, r.sym))
                };
                if r.sym != 0 && sym.is_none() {
                    // sm_100+: a frame entry whose function was removed goes too (inputs
                    // from a partial link have no UNUSED_CLEAR relocations to say so).
                    if self.m.mercury
                        && site.tsec.name == b".debug_frame"
                        && !self.p.policy.relocatable()
                    {
                        done.cleared.push((site.tp.sec, offset));
                    }
                    return Ok(()); // against something removed
                }
                // A relocatable link keeps unified types for the final one.
                let r_type = match table::without_unified_table(r.r_type, site.code()) {
                    Some(t) if !self.p.policy.relocatable() => t,
                    _ => r.r_type,
                };
                done.kept.push(OutReloc {
                    offset,
                    r_type,
                    sym,
                    addend,
                });
            }
        }
        Ok(())
    }

    /// UNUSED_CLEAR relocations clear their field when the function they describe was removed
    /// (the address range of its `.debug_frame` entry), and are dropped either way.
    fn unused_clear(
        &self,
        site: &Site<'_, '_>,
        r: &Reloc,
        isym: &Symbol<'_>,
        width: usize,
        bytes: Option<&mut (dyn Slots + '_)>,
        cleared: &mut Vec<(OutSec, u64)>,
    ) {
        let dead = self.p.clears_unused_field(site.oi, r.sym, isym);
        // sm_100+ also drops the entries of weak copies discarded for an
        // earlier object's definition.
        let replaced = self.m.mercury
            && self
                .p
                .discarded_copy(site.oi, r.sym, isym.section != SymSection::Undefined);
        let at = r.offset + site.tp.offset;
        if dead || replaced {
            cleared.push((site.tp.sec, at));
        }
        if let (true, Some(bytes)) = (dead, bytes) {
            if bytes.load(at as usize, width).is_some() {
                bytes.store(at as usize, width, 0);
            }
        }
    }

    /// What becomes of a relocation (with the shared-memory reference it makes), or `None`
    /// when it is dropped before its symbol is looked at.
    fn fate(
        &self,
        site: &Site<'_, '_>,
        i: usize,
        r: &Reloc,
        isym: &Symbol<'_>,
        values: &mut Vec<(OutSym, u64)>,
    ) -> Result<Option<(Fate, Option<shared::SharedRef>)>> {
        let oi = site.oi;
        // Relocations against a weak copy this link discarded (a later duplicate of an
        // earlier definition) go with it, but for its entries in the debug sections that
        // keep them; a copy replaced by a later strong definition keeps its references,
        // which now mean the winner.
        if !site.alloc()
            && !names::keeps_discarded_copy_references(site.tsec.name)
            && self
                .p
                .discarded_copy(oi, r.sym, isym.section != SymSection::Undefined)
        {
            return Ok(None);
        }
        // (-r keeps them, but for calls through the function table, which it drops
        // as nvlink does.)
        if UNIFIED_PLACEHOLDERS.contains(&isym.name)
            && isym.bind != STB_LOCAL
            && (!self.p.policy.relocatable() || table::is_call_or_table_call(r.r_type))
        {
            // Without unified symbols in the link the unified tables are empty:
            // offsets into them are zero (the field already holds the addend), so
            // the relocation is resolved with no change to the code.
            return Ok(None);
        }
        let shared_ref = (self.p.policy.lays_out_shared_memory()
            && self.p.shared.names_shared.may(oi, r.sym))
        .then(|| {
            self.p
                .shared
                .definitions
                .classify(self.p.objects, self.p.res, oi, r.sym)
        })
        .flatten();
        let addend = self.line_table_addend(site, i, r, isym)?;
        let fate = self.value(site, r, isym, addend, shared_ref, values);
        Ok(Some((fate, shared_ref)))
    }

    /// The addend, moved with the line table it points into (sm_100+ cuts line tables).
    fn line_table_addend(
        &self,
        site: &Site<'_, '_>,
        i: usize,
        r: &Reloc,
        isym: &Symbol<'_>,
    ) -> Result<i64> {
        let addend = r.addend.unwrap_or(0);
        let SymSection::Index(ss) = isym.section else {
            return Ok(addend);
        };
        if isym.st_type != STT_SECTION
            || !self.p.line_rewrites.contains_key(&(site.oi, ss as usize))
        {
            return Ok(addend);
        }
        self.p
            .line_table_offset(site.oi, ss as usize, addend as u64)
            .filter(|_| r.addend.is_some())
            .map(|a| a as i64)
            .ok_or_else(|| {
                Error::not_implemented(format!(
                    "'{}': '{}' entry {i} refers to a part of a line table \
                     the link cuts out (or holds its addend in the field); \
                     such references",
                    site.o.name,
                    site.s.name_str()
                ))
            })
    }

    /// What the symbol makes of a relocation: a value the link applies, a texture slot, or
    /// one the output keeps.
    fn value(
        &self,
        site: &Site<'_, '_>,
        r: &Reloc,
        isym: &Symbol<'_>,
        mut addend: i64,
        shared_ref: Option<shared::SharedRef>,
        values: &mut Vec<(OutSym, u64)>,
    ) -> Fate {
        let oi = site.oi;
        let placed_offset = |b: &Self, ss: u32| {
            b.p.placed[oi]
                .get(ss as usize)
                .copied()
                .flatten()
                .map(|p| p.offset)
        };
        // sm_100+ -r keeps 32-bit references to the line table, rebased (the
        // Mercury half's are program-relative).
        let to_line_table = match isym.section {
            SymSection::Index(ss) => site
                .o
                .cubin
                .sections
                .get(ss as usize)
                .is_some_and(|t| t.name == b".debug_line"),
            _ => false,
        };
        let keep_debug_ref = self.p.policy.relocatable()
            && self.m.mercury
            && r.r_type == table::cuda::R_32
            && to_line_table;
        let applied = if crate::merge::is_undefined_local(isym) {
            Some(self.ptx_const0_size(oi, r.sym, addend, values))
        } else if isym.st_type == STT_SECTION && !site.alloc() && keep_debug_ref {
            if let SymSection::Index(ss) = isym.section {
                if let Some(p) = placed_offset(self, ss) {
                    addend = addend.wrapping_add(p as i64);
                }
            }
            None
        } else if isym.st_type == STT_SECTION && !site.alloc() {
            // Section-relative references inside debug sections resolve here.
            let SymSection::Index(ss) = isym.section else {
                return Fate::Drop;
            };
            placed_offset(self, ss).map(|p| p.wrapping_add(addend as u64))
        } else if let Some(sr) = shared_ref {
            self.p
                .shared_value(oi, site.alloc().then_some(site.target), r.sym, sr)
                .map(|v| v.wrapping_add(addend as u64))
        } else if let Some(slot) = self.p.resource_slot(self.m, oi, site.target, r.sym) {
            return Fate::Slot(slot);
        } else if r.r_type == table::cuda::G64 {
            // A generic address (`__device__ const float *p = c_a;` against `__constant__`
            // data) is the driver's to give, wherever it is written: kept, as in debug
            // information.
            None
        } else if site.alloc() && !self.p.weak_kept_for_final_link(oi, r.sym) {
            self.p
                .constant_bank(oi, r.sym)
                .and_then(|bank| self.constant_value(site, r, isym, addend, bank))
        } else {
            None
        };
        match applied {
            Some(v) => Fate::Apply(v, addend),
            None => Fate::Keep(addend),
        }
    }

    /// libcudadevrt's `.nv.ptx.const0.size`: the size of PTX's constant bank 0, the user
    /// constants (`.nv.constant3`), -1 without any. A partial link keeps the symbol with that
    /// value. (The references are 32-bit fields.)
    fn ptx_const0_size(
        &self,
        oi: ObjectId,
        sym: u32,
        addend: i64,
        values: &mut Vec<(OutSym, u64)>,
    ) -> u64 {
        let size = self.const3_size.unwrap_or(u64::MAX);
        if let Some(out) = self.p.out_sym(oi, sym) {
            values.push((out, size));
        }
        size.wrapping_add(addend as u64) & u64::from(u32::MAX)
    }

    /// A reference to `__constant__` data or a literal in bank `bank`, as its field holds it.
    /// (Debug information keeps its references to `__constant__` data — R_CUDA_G64, the
    /// variable's generic address — for the driver.)
    fn constant_value(
        &self,
        site: &Site<'_, '_>,
        r: &Reloc,
        isym: &Symbol<'_>,
        addend: i64,
        bank: u32,
    ) -> Option<u64> {
        // (An internal local — ptxas's `<fn>.const_opt.*` literals — has no
        // output symbol: its place in the bank says where it went.)
        let value = self
            .p
            .out_sym(site.oi, r.sym)
            .map(|s| self.m.symbols[s].value)
            .or_else(|| match isym.section {
                // (A dead function's literal bank that -preserve-relocs drops
                // still gets its offsets written into the kept code, as if
                // placed at 0.)
                SymSection::Index(ss) => Some(
                    self.p.placed[site.oi]
                        .get(ss as usize)
                        .copied()
                        .flatten()
                        .map_or(0, |p| p.offset)
                        .wrapping_add(isym.value),
                ),
                _ => None,
            })?;
        let offset = value.wrapping_add(addend as u64);
        // sm_75–sm_89 constant fields hold `bank << 14 | offset / 4`; the
        // wider fields of sm_90+ already carry the bank and take bytes.
        // 21-bit fields hold `bank << 16 | offset`, the link writing the
        // bank on sm_75–sm_90: ptxas leaves it 0 in sm_75–sm_89 code (a
        // switch's jump table, `LDC R4, c[0x0][R6]`, is bank 2's), and
        // sm_90's already holds it. sm_100+ code holds it too, and its
        // capsule takes the offset alone. The offset is 16 bits, wrapping
        // (ptxas's `<fn>.const_opt.*` references carry -0x8000).
        Some(match r.r_type {
            table::cuda::CONST_FIELD19_40 => ((bank as u64) << 14) | (offset >> 2),
            // (sm_75–sm_89 surface instructions whose bindless handle is `__constant__`
            // data: its offset in 4-byte words, the bank implied.)
            table::cuda::BINDLESSOFF14_40 => offset >> 2,
            table::cuda::CONST_FIELD21_38 if r.addend.is_none() => ((bank as u64) << 16) | offset,
            table::cuda::CONST_FIELD21_38 if self.m.mercury => offset & 0xffff,
            table::cuda::CONST_FIELD21_38 => ((bank as u64) << 16) | (offset & 0xffff),
            _ => offset,
        })
    }

    /// Texture/surface reference: the field gets the slot (sm_75–sm_89 count 4-byte words).
    fn write_slot(
        &self,
        site: &Site<'_, '_>,
        r: &Reloc,
        slot: u64,
        bytes: Option<&mut (dyn Slots + '_)>,
        capsule: &mut Vec<CapsuleValue>,
    ) -> Result<()> {
        let v = if r.r_type == table::cuda::BINDLESSOFF14_40 {
            slot / 4
        } else {
            slot
        };
        let fields = patch::fields(r.r_type).ok_or_else(|| {
            Error::new(format!(
                "'{}': cannot apply relocation type {:#x}",
                site.o.name, r.r_type
            ))
        })?;
        if let Some(bytes) = bytes {
            patch::write(bytes, r.offset + site.tp.offset, fields, v)
                .map_err(|e| e.context(self.against(site, r)))?;
        }
        // (The capsule counts from the first slot.)
        if self.m.mercury && site.code() {
            let base = self
                .p
                .resource_bank(self.m, site.oi, site.target)
                .and_then(|b| self.p.resources.base.get(&b).copied());
            let v = slot.wrapping_sub(base.unwrap_or(0));
            capsule.push((site.oi, site.target, r.offset, r.r_type, v));
        }
        Ok(())
    }

    /// Where a relocation is, and what it refers to, defined where: a value that does not
    /// fit is usually the definer's doing.
    fn against(&self, site: &Site<'_, '_>, r: &Reloc) -> String {
        let name = |oi: ObjectId, sym: u32| {
            self.p.objects[oi]
                .symbols()
                .get(sym as usize)
                .map(|s| String::from_utf8_lossy(s.name).into_owned())
                .unwrap_or_default()
        };
        match self.p.res.definition(site.oi, r.sym) {
            Some((d, ds)) if d != site.oi => format!(
                "'{}': relocation against '{}' (defined in '{}')",
                site.o.name,
                name(d, ds),
                self.p.objects[d].name
            ),
            _ => format!(
                "'{}': relocation against '{}'",
                site.o.name,
                name(site.oi, r.sym)
            ),
        }
    }

    /// Adds `v` to the field (a RELA constant field up to sm_90: writes `v` whole); returns
    /// what the field held (`None`: the section holds no bytes to patch, and nothing else
    /// happens).
    fn apply(
        &self,
        site: &Site<'_, '_>,
        r: &Reloc,
        v: u64,
        bytes: Option<&mut (dyn Slots + '_)>,
        capsule: &mut Vec<CapsuleValue>,
    ) -> Result<Option<u64>> {
        let fields = patch::fields(r.r_type).ok_or_else(|| {
            Error::new(format!(
                "'{}': cannot apply relocation type {} ({:#x})",
                site.o.name,
                table::name(r.r_type).unwrap_or("unknown"),
                r.r_type
            ))
        })?;
        let offset = r.offset + site.tp.offset;
        let Some(bytes) = bytes else {
            return Ok(None);
        };
        let old =
            patch::read(bytes, offset, fields).map_err(|e| e.context(self.against(site, r)))?;
        // (A RELA constant field is written whole, bank and offset, whatever ptxas left in
        // it, and so is a bindless handle's offset, where ptxas leaves the addend's words
        // (black-box, sm_75: `h.b` of a `__constant__` struct at 0x10 is 6, not 2 + 0x18);
        // elsewhere the field's contents are added to, as REL's implicit addend.)
        let whole = match r.r_type {
            table::cuda::CONST_FIELD21_38 => !self.m.mercury,
            table::cuda::BINDLESSOFF14_40 => true,
            _ => false,
        };
        let new = if whole && r.addend.is_some() {
            v
        } else {
            old.wrapping_add(v)
        };
        patch::write(bytes, offset, fields, new).map_err(|e| e.context(self.against(site, r)))?;
        if self.m.mercury && site.code() {
            capsule.push((site.oi, site.target, r.offset, r.r_type, v));
        }
        Ok(Some(old))
    }

    /// -preserve-relocs records what was applied, against the same symbol, with the addend
    /// made explicit (REL inputs keep it in the field).
    fn record_applied(
        &self,
        site: &Site<'_, '_>,
        r: &Reloc,
        isym: &Symbol<'_>,
        shared_ref: Option<shared::SharedRef>,
        applied: Applied,
        done: &mut SiteOut,
    ) {
        let Applied { old, v, addend } = applied;
        // (Extern arrays have no symbol to record against, but under -g; sm_90 gives them
        // one beside a pool of functions' objects, and then nvlink records the references
        // of code no kernel reaches, at -1 (black-box: testdata dead_extern_pool, sm_90 -preserve-relocs).)
        let unreached = self
            .p
            .shared
            .unreached_extern_users
            .contains(&(site.oi, site.target));
        let extern_shared = matches!(shared_ref, Some(shared::SharedRef::Extern))
            && !self.p.policy.debug()
            && !unreached;
        // sm_100+ records only shared-memory references (nvlink's sm_100 mode
        // keeps no debug, constant-bank or texture records).
        let unrecorded_on_sm100 = self.m.mercury && (shared_ref.is_none() || !site.alloc());
        if !self.p.policy.preserve_relocs() || extern_shared || unrecorded_on_sm100 {
            return;
        }
        let Some(sym) = self.p.out_sym(site.oi, r.sym) else {
            return;
        };
        let implicit = match r.addend {
            None if r.r_type == table::cuda::CONST_FIELD19_40 => old << 2,
            None => old,
            Some(_) => 0,
        };
        let addend = if isym.st_type == STT_SECTION && !site.alloc() {
            old.wrapping_add(v) as i64
        } else {
            addend.wrapping_add(implicit as i64)
        };
        done.recorded_first |= done.kept.is_empty() && done.recorded.is_empty();
        done.recorded.push(OutReloc {
            offset: r.offset + site.tp.offset,
            r_type: r.r_type,
            sym: Some(sym),
            addend,
        });
    }
}

/// The output relocation sections: entries newest first (sm_100+ line tables: by offset),
/// into the sections made earlier in nvlink's order, or new ones after them.
fn finish_sections(m: &mut Module, out: OutRelocs) {
    use rayon::prelude::*;
    // (Each section's entries joined on its own, in parallel: a large link has millions.)
    let module: &Module = m;
    let joined: Vec<_> = out
        .sections
        .into_par_iter()
        .map(
            |OutRelocSection {
                 out,
                 target,
                 sh_type,
                 entries,
             }| {
                // sm_100+ keeps the line tables' relocations in reading order.
                let line_table = matches!(
                    &module.sections[target].name[..],
                    b".debug_line" | b".nv_debug_line_sass"
                );
                let reading_order = module.mercury && line_table;
                // (Most sections have one site's entries: turned round where they are, not
                // copied into a table of their own.)
                if let ([_], false) = (&entries[..], reading_order) {
                    let mut all = entries.into_iter().next().unwrap_or_default();
                    all.reverse();
                    return (out, target, sh_type, all);
                }
                let mut all = Vec::with_capacity(entries.iter().map(Vec::len).sum());
                if reading_order {
                    entries.into_iter().for_each(|e| all.extend(e));
                    all.sort_by_key(|r| r.offset);
                } else {
                    // (newest first)
                    entries
                        .into_iter()
                        .rev()
                        .for_each(|e| all.extend(e.into_iter().rev()));
                }
                (out, target, sh_type, all)
            },
        )
        .collect();
    for (out, target, sh_type, entries) in joined {
        let existing = match &out {
            Ok(id) => Some(*id),
            Err(name) => m.section_named(name),
        };
        if let Some(id) = existing {
            let sec = &mut m.sections[id];
            sec.content = Content::Relocs {
                rela: type_is_rela(sh_type),
                entries,
            };
            sec.info = Info::Section(target);
        } else if let Err(name) = out {
            if !entries.is_empty() {
                m.add_named_section(reloc_section(name, sh_type, target, entries));
            }
        }
    }
}
