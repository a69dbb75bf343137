//! The writer: serializes a laid-out [`Module`] into ELF bytes, and puts them on disk through
//! a temporary file renamed at the end, so a failed link never leaves an output behind.

mod file;
mod headers;
mod symtab;

pub use file::{write_file, write_with, Contents};

use crate::input::files::Pages;
use crate::layout::Layout;
use crate::object::InputObject;
use crate::output::{Content, InputBytes, Module, OutReloc, OutSec};
use std::borrow::Cow;

fn put16(b: &mut Vec<u8>, v: u16) {
    b.extend_from_slice(&v.to_le_bytes());
}
fn put32(b: &mut Vec<u8>, v: u32) {
    b.extend_from_slice(&v.to_le_bytes());
}
fn put64(b: &mut Vec<u8>, v: u64) {
    b.extend_from_slice(&v.to_le_bytes());
}

/// What fills the gaps between sections in a run (alignment padding).
static ZEROS: [u8; 4096] = [0; 4096];

thread_local! {
    /// Where a writing thread puts a run's small sections (`write_run`).
    static SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Sections smaller than this are written from a copy in the scratch buffer.
const SMALL: usize = 16 << 10;

/// At most this many slices a call (Linux takes 1024).
const RUN_SLICES: usize = 1000;
/// Runs end after this many bytes, so that large outputs are written by every thread.
const RUN_BYTES: u64 = 1 << 20;

/// The ELF file as bytes (`inputs`: the link's objects, whose code the module may name
/// rather than hold).
pub fn to_bytes(m: &Module, l: &Layout, inputs: &[InputObject<'_>]) -> Vec<u8> {
    let mut out = vec![0u8; l.file_size as usize];
    Image::new(m, l, inputs).fill(&mut out);
    out
}

/// The output file to be: each section's bytes and the headers, at their offsets (disjoint
/// ranges; what lies between them is zero). Sections the merge made are written from the
/// module as they are; only the few with fields that name output indices are copied to be
/// patched, and code the module names (`Content::Input`) is its input's bytes, copied with
/// the words the link changed put back where it changed any.
pub struct Image<'a> {
    m: &'a Module,
    l: &'a Layout,
    /// The objects whose sections `Content::Input` names.
    inputs: &'a [InputObject<'a>],
    /// Where their files' pages are given back as they are written (`giving_back`).
    pages: Option<&'a Pages<'a>>,
    /// The sections with bytes in the file, in file order.
    sections: Vec<OutSec>,
    /// sm_100+: where prototype ids sit in each section holding some (see `with_prototypes`).
    prototypes: hashbrown::HashMap<OutSec, Vec<usize>>,
}

impl<'a> Image<'a> {
    pub fn new(m: &'a Module, l: &'a Layout, inputs: &'a [InputObject<'a>]) -> Image<'a> {
        // (Header order is file order; empty sections have nothing to write.)
        let sections = l
            .order
            .iter()
            .copied()
            .filter(|&sid| l.size[sid] != 0 && has_file_bytes(&m.sections[sid].content))
            .collect();
        let mut prototypes = hashbrown::HashMap::<OutSec, Vec<usize>>::new();
        if l.prototype_shift != 0 {
            for &(sec, at) in &m.prototype_fields {
                prototypes.entry(sec).or_default().push(at);
            }
        }
        Image {
            m,
            l,
            inputs,
            pages: None,
            sections,
            prototypes,
        }
    }

    /// Gives back the pages of the files whose code each run wrote, once it is written: the
    /// code is read from the inputs again here, and holding all of it to the end was a
    /// large link's peak of memory.
    pub fn giving_back(self, pages: &'a Pages<'a>) -> Image<'a> {
        Image {
            pages: Some(pages),
            ..self
        }
    }

    /// The input bytes of a `Content::Input` section.
    fn input_bytes(&self, i: &InputBytes) -> &'a [u8] {
        self.inputs[i.object].cubin.sections[i.section as usize].bytes()
    }

    /// The sections grouped into runs written by one call: neighbours (a gap no larger than
    /// `ZEROS`), at most `RUN_SLICES` slices and about `RUN_BYTES` bytes each.
    fn runs(&self) -> Vec<std::ops::Range<usize>> {
        let mut runs = Vec::new();
        let (mut start, mut slices, mut bytes, mut end) = (0, 0, 0u64, 0u64);
        for (i, &sid) in self.sections.iter().enumerate() {
            let (off, size) = (self.l.offset[sid], self.l.size[sid]);
            let gap = off.saturating_sub(end);
            if i > start
                && (gap > ZEROS.len() as u64 || slices + 2 > RUN_SLICES || bytes >= RUN_BYTES)
            {
                runs.push(start..i);
                (start, slices, bytes) = (i, 0, 0);
            }
            slices += 1 + usize::from(gap > 0 && i > start);
            bytes += size;
            end = off + size;
        }
        if start < self.sections.len() {
            runs.push(start..self.sections.len());
        }
        runs
    }

    /// The ELF header, the section headers and the program headers, with their offsets.
    fn headers(&self) -> [(u64, Vec<u8>); 3] {
        let (m, l) = (self.m, self.l);
        [
            (0, headers::elf_header(m, l)),
            (l.shoff, headers::section_headers(m, l)),
            (l.phoff, headers::program_headers(l)),
        ]
    }

    /// A section's bytes in the file.
    fn section(&self, sid: OutSec) -> Cow<'a, [u8]> {
        let (m, l) = (self.m, self.l);
        let bytes = match &m.sections[sid].content {
            Content::Bytes(b) => Cow::Borrowed(&b[..]),
            Content::WithSymbols { bytes, slots } => {
                let mut b = bytes.clone();
                put_symbol_indices(&mut b, slots, l);
                Cow::Owned(b)
            }
            Content::MercCode { bytes, text } => {
                let mut b = bytes.clone();
                if let Some(first) = b.get_mut(..4) {
                    first.copy_from_slice(&l.sec_index[*text].to_le_bytes());
                }
                Cow::Owned(b)
            }
            Content::Input(i) => i.with_changes(self.input_bytes(i)),
            Content::NoBits(_) | Content::Alias(_) => Cow::Borrowed(&[][..]),
            Content::MercSymtab => Cow::Owned(symtab::merc_symtab(m, l)),
            Content::Relocs { rela, entries } => Cow::Owned(relocs(l, *rela, entries)),
            Content::Strtab => Cow::Borrowed(&l.strtab[..]),
            Content::Shstrtab => Cow::Borrowed(&l.shstrtab[..]),
            Content::SymtabShndx => Cow::Owned(symtab::symtab_shndx(m, l)),
            Content::Symtab => Cow::Owned(symtab::symtab(m, l)),
        };
        match self.prototypes.get(&sid) {
            Some(fields) => Cow::Owned(with_prototypes(bytes.into_owned(), fields, l)),
            None => bytes,
        }
    }
}

/// A section's symbol fields (`Content::WithSymbols`'s slots) given their symbols' places in
/// the output's symbol table.
fn put_symbol_indices(bytes: &mut [u8], slots: &[(usize, crate::output::OutSym)], l: &Layout) {
    for &(at, sym) in slots {
        bytes[at..at + 4].copy_from_slice(&l.sym_index[sym].to_le_bytes());
    }
}

impl Contents for Image<'_> {
    fn size(&self) -> u64 {
        self.l.file_size
    }

    /// Writes the file into `out` (`l.file_size` zeroed bytes), the sections in parallel.
    fn fill(&self, out: &mut [u8]) {
        use rayon::prelude::*;
        let mut slices: Vec<(OutSec, &mut [u8])> = Vec::with_capacity(self.sections.len());
        let mut rest: &mut [u8] = out;
        let mut at = 0u64;
        for &sid in &self.sections {
            let (off, size) = (self.l.offset[sid], self.l.size[sid]);
            let skipped = std::mem::take(&mut rest)
                .split_at_mut((off - at) as usize)
                .1;
            let (mine, after) = skipped.split_at_mut(size as usize);
            slices.push((sid, mine));
            rest = after;
            at = off + size;
        }
        slices
            .into_par_iter()
            .with_min_len(16)
            .for_each(|(sid, dst)| dst.copy_from_slice(&self.section(sid)));
        for (off, bytes) in self.headers() {
            out[off as usize..off as usize + bytes.len()].copy_from_slice(&bytes);
        }
    }

    /// Writes the file into `f` (`l.file_size` bytes long, zero) at offsets: runs of
    /// neighbouring sections, one system call each (a call per section would be 200,000
    /// calls in a large link, each taking the file's lock), from the module's bytes and the
    /// inputs' code (`section`; small sections gathered in a scratch buffer, see
    /// `write_run`), and nothing mapped. The runs' bytes are made in parallel, but one call
    /// writes at a time: a buffered write holds the file's lock in the kernel, and two
    /// threads writing one file spun there (`perf`, on ext4).
    fn write_to(&self, f: &std::fs::File) -> std::io::Result<()> {
        use rayon::prelude::*;
        use std::io::IoSlice;
        let one_at_a_time = std::sync::Mutex::new(());
        // (The headers, 13 MB in a large link, are made while the sections are written.)
        let (headers, written) = rayon::join(
            || self.headers(),
            || {
                self.runs()
                    .par_iter()
                    .try_for_each(|run| self.write_run(f, run.clone(), &one_at_a_time))
            },
        );
        written?;
        headers.iter().try_for_each(|(off, bytes)| {
            file::write_all_vectored_at(f, &mut [IoSlice::new(bytes)], *off)
        })
    }
}

impl Image<'_> {
    /// Writes the sections of one run (`self.sections[run]`), once it is `turn`'s to write.
    ///
    /// Sections under `SMALL` bytes (nearly all of them: a large link writes a hundred
    /// thousand) are copied, with the padding between them, into this thread's scratch buffer
    /// first, and written from there as one slice: the kernel's copy pays for each slice of a
    /// call, and it runs one call at a time, while these copies run on every thread.
    fn write_run(
        &self,
        f: &std::fs::File,
        run: std::ops::Range<usize>,
        turn: &std::sync::Mutex<()>,
    ) -> std::io::Result<()> {
        use std::io::IoSlice;
        let sections = &self.sections[run];
        // (Taken while in use: a thread waiting in a nested parallel call may start another
        // run.)
        let mut scratch = SCRATCH.take();
        scratch.clear();
        // Each piece of the run in order: bytes in the scratch buffer, or a large section's
        // own bytes.
        enum Piece<'b> {
            Scratch(std::ops::Range<usize>),
            Own(Cow<'b, [u8]>),
        }
        let mut pieces: Vec<Piece<'_>> = Vec::new();
        let start = self.l.offset[sections[0]];
        let mut at = start;
        for &sid in sections {
            let (off, size) = (self.l.offset[sid], self.l.size[sid] as usize);
            let gap = (off - at) as usize;
            if size < SMALL {
                if !matches!(pieces.last(), Some(Piece::Scratch(_))) {
                    pieces.push(Piece::Scratch(scratch.len()..scratch.len()));
                }
                scratch.resize(scratch.len() + gap, 0);
                let put = scratch.len();
                match &self.m.sections[sid].content {
                    Content::Input(i) if !self.prototypes.contains_key(&sid) => {
                        scratch.extend_from_slice(self.input_bytes(i));
                        i.put_changes(&mut scratch[put..]);
                    }
                    // (Made in place, not copied from a copy: the `.nv.info.<fn>` sections
                    // are most of a large link's sections.)
                    Content::WithSymbols { bytes, slots }
                        if !self.prototypes.contains_key(&sid) =>
                    {
                        scratch.extend_from_slice(bytes);
                        put_symbol_indices(&mut scratch[put..], slots, self.l);
                    }
                    _ => scratch.extend_from_slice(&self.section(sid)),
                }
                debug_assert_eq!(scratch.len() - put, size);
                if let Some(Piece::Scratch(r)) = pieces.last_mut() {
                    r.end = scratch.len();
                }
            } else {
                if gap > 0 {
                    pieces.push(Piece::Own(Cow::Borrowed(&ZEROS[..gap])));
                }
                let bytes = self.section(sid);
                debug_assert_eq!(bytes.len(), size);
                pieces.push(Piece::Own(bytes));
            }
            at = off + size as u64;
        }
        let mut slices: Vec<IoSlice<'_>> = pieces
            .iter()
            .map(|p| match p {
                Piece::Scratch(r) => IoSlice::new(&scratch[r.clone()]),
                Piece::Own(b) => IoSlice::new(b),
            })
            .collect();
        let written = {
            let _mine = turn.lock().unwrap_or_else(|p| p.into_inner());
            file::write_all_vectored_at(f, &mut slices, start)
        };
        drop(slices);
        SCRATCH.set(scratch);
        written?;
        // (Code written from its input: its files' pages, which writing it read again, are
        // given back as the runs are written, not held to the end.)
        if let Some(pages) = self.pages {
            let code: Vec<usize> = sections
                .iter()
                .filter_map(|&s| match &self.m.sections[s].content {
                    Content::Input(i) => Some(self.input_bytes(i).as_ptr() as usize),
                    _ => None,
                })
                .collect();
            pages.give_back_files(&code);
        }
        Ok(())
    }
}

/// Whether a section has bytes of its own in the file.
fn has_file_bytes(c: &Content) -> bool {
    !matches!(c, Content::NoBits(_) | Content::Alias(_))
}

/// A relocation section's entries (`rela`: with addends).
fn relocs(l: &Layout, rela: bool, entries: &[OutReloc]) -> Vec<u8> {
    let mut b = Vec::with_capacity(entries.len() * 24);
    for r in entries {
        put64(&mut b, r.offset);
        let sym = r.sym.map(|id| l.sym_index[id]).unwrap_or(0) as u64;
        put64(&mut b, (sym << 32) | r.r_type as u64);
        if rela {
            put64(&mut b, r.addend as u64);
        }
    }
    b
}

/// sm_100+: the prototype strings follow the symbol names in `.strtab`, so the prototype
/// ids the merge wrote into a section (at `fields`) move by the names' length.
fn with_prototypes(mut b: Vec<u8>, fields: &[usize], l: &Layout) -> Vec<u8> {
    for &at in fields {
        let v = u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
        // 0 means no prototype.
        if v != 0 {
            b[at..at + 4].copy_from_slice(&(v + l.prototype_shift).to_le_bytes());
        }
    }
    b
}
