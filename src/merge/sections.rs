//! Placement: each live input section's bytes appended to its output section, aligned, with
//! where it went recorded (`Placed`) for the passes that follow. Where each section goes is
//! decided in input order (`place_sections`); the bytes are copied after, in parallel over
//! the output sections (`copy_placed`), except code placed whole in a section of its own,
//! which the module names instead (`Content::Input`, written from the input).

use super::*;
use crate::elf::read::Section;
use crate::ids::ObjectId;

/// What `place_sections` decided: the bytes to copy, and each output section's length so far
/// (its room is made once, at its final size, by `make_room`: growing it section by section
/// copied and zeroed it over and over).
pub(super) struct Pending {
    copies: Vec<PendingCopy>,
    len: Lengths,
}

impl Pending {
    /// Room for `copies` copies.
    pub(super) fn with_room(copies: usize) -> Self {
        Pending {
            copies: Vec::with_capacity(copies),
            len: Lengths::default(),
        }
    }
}

/// Each output section's length so far, for those placement has put bytes in: dense by
/// `OutSec` (two hundred thousand look-ups at a large link, on one thread), growing with the
/// sections placement makes, and which have one, so that they can be taken back out.
#[derive(Default)]
pub(super) struct Lengths {
    /// (`NONE`: no bytes placed yet.)
    len: Vec<usize>,
    met: Vec<OutSec>,
}

impl Lengths {
    const NONE: usize = usize::MAX;

    /// Section `sec`'s length so far, `start` if it has none yet.
    fn entry(&mut self, sec: OutSec, start: usize) -> &mut usize {
        let i = sec.index();
        if i >= self.len.len() {
            self.len.resize(i + 1, Self::NONE);
        }
        if self.len[i] == Self::NONE {
            self.len[i] = start;
            self.met.push(sec);
        }
        &mut self.len[i]
    }

    fn get(&self, sec: OutSec) -> Option<usize> {
        self.len
            .get(sec.index())
            .copied()
            .filter(|&n| n != Self::NONE)
    }

    /// Takes every length out, in the order the sections were first met.
    fn drain(&mut self) -> Vec<(OutSec, usize)> {
        let len = &mut self.len;
        self.met
            .drain(..)
            .map(|s| (s, std::mem::replace(&mut len[s.index()], Self::NONE)))
            .collect()
    }
}

/// Bytes `place_sections` made room for, to be copied by `copy_placed`.
#[derive(Clone, Copy)]
pub(super) struct PendingCopy {
    sec: OutSec,
    at: usize,
    /// The input section (its line table as the link rewrote it, where it did).
    from: (ObjectId, usize),
}

/// The fewest pieces of one output section copied in parallel.
const PIECES_IN_PARALLEL: usize = 64;

impl Builder<'_, '_> {
    /// Copies the placed sections' bytes into the room made for them, each output section's
    /// on its own, in parallel; a `.debug_frame` moved off its start gets its unrelocated
    /// CIE pointers rebased. Then the input pages copied are given back.
    pub(super) fn copy_placed(&mut self, pending: Pending, pages: &crate::input::files::Pages<'_>) {
        use rayon::prelude::*;
        let (pending, len) = (pending.copies, pending.len);
        let copied = self.copied_spans(&pending, pages.page_size());
        let sections = self.m.sections.as_mut_slice();
        // (Grouped by counting: a list per section was a hundred thousand allocations, on
        // one thread.)
        let (by_sec, start) =
            crate::ids::grouped_by(sections.len(), &pending, |c| c.sec.index(), |c| *c);
        let p = &self.p;
        sections.par_iter_mut().enumerate().for_each(|(i, sec)| {
            let copies = &by_sec[start[i] as usize..start[i + 1] as usize];
            let n = len.get(OutSec::from_index(i));
            if let Some(whole) = p.written_from_input(&sec.content, n, copies) {
                sec.content = Content::Input(whole);
                return;
            }
            // (Each section's room is made here, on the thread that fills it.)
            if let Some(n) = n {
                make_room(&mut sec.content, n);
            }
            let Content::Bytes(bytes) = &mut sec.content else {
                return;
            };
            let copy = |c: &PendingCopy, dst: &mut [u8]| {
                dst.copy_from_slice(p.copy_source(c));
                let (oi, si) = c.from;
                let o = &p.objects[oi];
                if o.cubin.sections[si].name == b".debug_frame" && c.at > 0 {
                    debug_frame::rebase_unrelocated_cie_pointers(o, si, dst, c.at as u64);
                }
            };
            // Each copy's part of the section's bytes.
            let parts = {
                let (mut rest, mut at): (&mut [u8], usize) = (bytes, 0);
                copies.iter().map(move |c| {
                    let len = p.copy_source(c).len();
                    let (_, from_here) = std::mem::take(&mut rest).split_at_mut(c.at - at);
                    let (dst, after) = from_here.split_at_mut(len);
                    (rest, at) = (after, c.at + len);
                    (c, dst)
                })
            };
            // (A section gathered from every object, `.debug_frame`, is most of what is
            // copied: its pieces are copied in parallel too, each into its own part. Most
            // sections have one piece: copied here, with no list made for it.)
            if copies.len() < PIECES_IN_PARALLEL {
                parts.for_each(|(c, dst)| copy(c, dst));
            } else {
                let parts: Vec<_> = parts.collect();
                parts
                    .into_par_iter()
                    .with_min_len(PIECES_IN_PARALLEL)
                    .for_each(|(c, dst)| copy(c, dst));
            }
        });
        pages.give_back(&copied);
    }

    /// The address ranges of the input bytes `pending` copies, joined where no more than a
    /// page lies between them (each object's code is one run of sections in nvcc's files):
    /// a few ranges per object, not one per section. With them, each object's section header
    /// table: read once, into `Cubin::sections`, and at the end of nvcc's files, after the
    /// code (an eighth of a file of small functions).
    fn copied_spans(&self, pending: &[PendingCopy], page: usize) -> Vec<(usize, usize)> {
        use rayon::prelude::*;
        let rewritten = &self.p.line_rewrites;
        let mut spans: Vec<(usize, usize)> = pending
            .par_iter()
            .filter(|c| rewritten.is_empty() || !rewritten.contains_key(&c.from))
            .map(|c| {
                let b = self.p.objects[c.from.0].cubin.sections[c.from.1].bytes();
                (b.as_ptr() as usize, b.as_ptr() as usize + b.len())
            })
            .collect();
        spans.extend(self.p.objects.iter().filter_map(|o| {
            let table = o.cubin.section_header_table()?;
            Some((
                table.as_ptr() as usize,
                table.as_ptr() as usize + table.len(),
            ))
        }));
        crate::input::files::joined(spans, page)
    }

    /// Gives each output section the length placement decided for it so far.
    fn make_room(&mut self, len: &mut Lengths) {
        for (out, n) in len.drain() {
            make_room(&mut self.m.sections[out].content, n);
        }
    }

    /// Decides where each live section's bytes go in its output section (`pending`: the
    /// lengths so far and what to copy).
    pub(super) fn place_sections(&mut self, oi: ObjectId, pending: &mut Pending) -> Result<()> {
        let o = &self.p.objects[oi];
        for (si, s) in o.cubin.sections.iter().enumerate() {
            if !self.p.live[oi][si] {
                continue;
            }
            // (A literal bank writes into its kernels' banks at once: they get their room
            // first. Rare: only sm_100+ functions' literal banks.)
            if self.p.literal.place.contains_key(&(oi, si)) {
                self.make_room(&mut pending.len);
            }
            if self.place_literal_bank(oi, si)? {
                continue;
            }
            let Some(out) = self.out_section_for(oi, si) else {
                continue;
            };
            let os = &mut self.m.sections[out];
            os.align = os.align.max(s.align);
            let offset = match &mut os.content {
                Content::Bytes(bytes) => {
                    let so_far = pending.len.entry(out, bytes.len());
                    let off = align_up(*so_far as u64, s.align);
                    let len = match self.p.line_rewrites.get(&(oi, si)) {
                        Some(rw) => rw.bytes.len(),
                        None => s.bytes().len(),
                    };
                    *so_far = off as usize + len;
                    pending.copies.push(PendingCopy {
                        sec: out,
                        at: off as usize,
                        from: (oi, si),
                    });
                    // A partial link resolved its code's references to its own `__constant__`
                    // data (as nvlink's does) and kept no relocation for them: that data
                    // cannot move. (nvlink moves it and leaves the code pointing at the old
                    // offsets.)
                    let user_bank =
                        (SHT_CUDA_CONSTANT_B0 + 1..=SHT_CUDA_CONSTANT_B17).contains(&s.sh_type);
                    if user_bank && off > 0 && s.size > 0 && o.made_by_linker() {
                        return Err(Error::new(format!(
                            "'{}' is a partial link's output whose {} data would move to offset \
                             {off:#x}, but its code holds the offsets it had there (a partial \
                             link resolves constant-bank references); list it first, or link \
                             its objects in one step",
                            o.name,
                            s.name_str()
                        )));
                    }
                    off
                }
                // -r sizes `.nv_debug.shared` for every object's but leaves each object's
                // shared objects at their own offsets, as nvlink's does.
                // Reserved shared memory: sized by its objects (`finish_symbols`).
                Content::NoBits(_) if s.sh_type == SHT_CUDA_RESERVED_SHARED => 0,
                // (A partial link's own, which only defines extern arrays, adds nothing: the
                // link makes that one again.)
                Content::NoBits(n)
                    if self.p.policy.relocatable() && s.name == b".nv_debug.shared" =>
                {
                    let arrays_only = o.symbols().iter().all(|x| {
                        x.section != SymSection::Index(si as u32)
                            || x.st_type == STT_SECTION
                            || x.size == 0
                    });
                    *n = if arrays_only && !self.p.partial.uses.is_empty() {
                        (*n).max(s.size)
                    } else {
                        align_up(*n, s.align) + s.size
                    };
                    0
                }
                Content::NoBits(n) => {
                    let off = align_up(*n, s.align);
                    *n = off + s.size;
                    off
                }
                // Only a damaged input names a section after one of another kind (bytes
                // against no bytes, or a table the linker makes).
                _ => {
                    return Err(Error::new(format!(
                        "'{}': section '{}' (type {:#x}) has the name of an output section of \
                         another kind",
                        o.name,
                        s.name_str(),
                        s.sh_type
                    )))
                }
            };
            self.p.placed[oi][si] = Some(Placed { sec: out, offset });
            let kernel_shared =
                !self.p.policy.lays_out_shared_memory() && s.name.starts_with(b".nv.shared.");
            // (ptxas's per-function literal banks, `.nv.constant2.<fn>`, name theirs too.)
            let function_bank = s.flags & SHF_INFO_LINK != 0
                && s.info != 0
                && (SHT_CUDA_CONSTANT_B0..=SHT_CUDA_CONSTANT_B17).contains(&s.sh_type);
            if o.kind(s) == SectionKind::KernelConstant || kernel_shared || function_bank {
                // Its sh_info names the kernel's text section.
                let target = s.info as usize;
                if let Some(t) = self.out_section_for(oi, target) {
                    self.m.sections[out].info = Info::Section(t);
                    self.m.sections[out].flags |= SHF_INFO_LINK;
                }
            }
        }
        Ok(())
    }
}

impl Placement<'_, '_> {
    /// The bytes a pending copy copies: its input section's (its line table as the link
    /// rewrote it, where it did).
    fn copy_source(&self, c: &PendingCopy) -> &[u8] {
        match self.line_rewrites.get(&c.from) {
            Some(rw) => &rw.bytes[..],
            None => self.objects[c.from.0].cubin.sections[c.from.1].bytes(),
        }
    }

    /// Code placed whole, alone in its output section, is written from its input (with the
    /// words relocation changes) rather than copied into the module: the copy was a large
    /// link's largest table. (Not where the policy says no; sections with room made
    /// already, or their bytes rewritten, keep their copy.)
    fn written_from_input(
        &self,
        content: &Content,
        len: Option<usize>,
        copies: &[PendingCopy],
    ) -> Option<InputBytes> {
        let [c] = copies else { return None };
        let (oi, si) = c.from;
        let s = &self.objects[oi].cubin.sections[si];
        let whole = c.at == 0
            && len == Some(s.bytes().len())
            && nameable_code(s)
            && self.policy.writes_code_from_input()
            && matches!(content, Content::Bytes(b) if b.is_empty())
            && !self.line_rewrites.contains_key(&c.from);
        whole.then(|| InputBytes {
            object: oi,
            section: si as u32,
            len: s.bytes().len() as u64,
            changed: Vec::new(),
        })
    }
}

/// Whether an input section is code the module can name rather than hold: its changed words
/// are 8-byte words at 32-bit offsets (`InputBytes::changed`).
pub(super) fn nameable_code(s: &Section<'_>) -> bool {
    s.sh_type == SHT_PROGBITS
        && s.flags & SHF_EXECINSTR != 0
        && s.bytes().len() % 8 == 0
        && u32::try_from(s.bytes().len()).is_ok()
}

/// The address ranges of the objects' code, joined where no more than `page` apart.
pub(super) fn code_spans(objects: &[InputObject<'_>], page: usize) -> Vec<(usize, usize)> {
    use rayon::prelude::*;
    let spans = objects
        .par_iter()
        .flat_map_iter(|o| {
            o.cubin
                .sections
                .iter()
                .filter(|s| nameable_code(s))
                .map(|s| {
                    let b = s.bytes();
                    (b.as_ptr() as usize, b.as_ptr() as usize + b.len())
                })
        })
        .collect();
    crate::input::files::joined(spans, page)
}

/// Gives a section's bytes length `n`, zeroed (a new one comes zeroed from the allocator,
/// with no pass over it).
fn make_room(c: &mut Content, n: usize) {
    if let Content::Bytes(b) = c {
        if b.is_empty() {
            *b = vec![0; n];
        } else {
            b.resize(n, 0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn section(sh_type: u32, flags: u64, data: &[u8]) -> Section<'_> {
        Section {
            index: 1,
            name: b".text.f",
            sh_type,
            flags,
            addr: 0,
            offset: 0,
            size: data.len() as u64,
            link: 0,
            info: 0,
            align: 128,
            entsize: 0,
            data: Some(data),
        }
    }

    #[test]
    fn code_of_whole_words_can_be_named_rather_than_copied() {
        let code = [0u8; 32];
        assert!(nameable_code(&section(
            SHT_PROGBITS,
            SHF_ALLOC | SHF_EXECINSTR,
            &code
        )));
        assert!(nameable_code(&section(SHT_PROGBITS, SHF_EXECINSTR, &[])));
    }

    #[test]
    fn data_and_code_of_part_words_are_copied() {
        let bytes = [0u8; 36];
        assert!(!nameable_code(&section(
            SHT_PROGBITS,
            SHF_ALLOC,
            &bytes[..32]
        )));
        assert!(!nameable_code(&section(
            SHT_PROGBITS,
            SHF_ALLOC | SHF_EXECINSTR,
            &bytes
        )));
        assert!(!nameable_code(&section(
            SHT_CUDA_CONSTANT_B0,
            SHF_EXECINSTR,
            &bytes[..32]
        )));
    }

    #[test]
    fn a_section_length_starts_where_its_bytes_end_and_is_taken_back_in_the_order_met() {
        let (a, b) = (OutSec::from_index(7), OutSec::from_index(2));
        let mut len = Lengths::default();
        assert_eq!(len.get(a), None);
        *len.entry(a, 16) += 8;
        *len.entry(b, 0) = 4;
        // (Met again: the length so far, not the start.)
        assert_eq!(*len.entry(a, 0), 24);
        assert_eq!(len.get(b), Some(4));
        assert_eq!(len.drain(), [(a, 24), (b, 4)]);
        assert_eq!((len.get(a), len.get(b)), (None, None));
        assert_eq!(*len.entry(a, 3), 3, "taken back, a length starts anew");
    }
}
