//! The output module as the merge pass builds it and the writer serializes it: sections and
//! symbols in creation order, referring to each other by output ids (never by final index,
//! which only the writer fixes).

pub mod order;

use crate::ids::IdVec;
pub use crate::ids::{OutSec, OutSym};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Link {
    None,
    Symtab,
    Strtab,
    Section(OutSec),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Info {
    None,
    Section(OutSec),
    /// A symbol index, with a value for the top byte (code sections of sm_75–sm_89 keep
    /// the function's register count there).
    Symbol(OutSym, u8),
    /// `.symtab`: index of the first non-local symbol.
    FirstGlobal,
    /// `.nv.merc.symtab`: the same for the Mercury symbol table.
    MercFirstGlobal,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutReloc {
    pub offset: u64,
    pub r_type: u32,
    /// `None` for relocations without a symbol (index 0).
    pub sym: Option<OutSym>,
    pub addend: i64,
}

#[derive(Debug, Clone)]
pub enum Content {
    Bytes(Vec<u8>),
    /// Bytes in which some u32 words are symbol indices, filled in by the writer.
    WithSymbols {
        bytes: Vec<u8>,
        slots: Vec<(usize, OutSym)>,
    },
    NoBits(u64),
    Relocs {
        rela: bool,
        entries: Vec<OutReloc>,
    },
    Symtab,
    /// Extended section indices of the symbols (only when sections exceed SHN_LORESERVE).
    SymtabShndx,
    Strtab,
    Shstrtab,
    /// `.nv.merc.symtab`: `Module::merc_symbols`, in `.symtab`'s order.
    MercSymtab,
    /// Capsule Mercury code: its first word (u32) is the header index of its main-half twin.
    MercCode {
        bytes: Vec<u8>,
        text: OutSec,
    },
    /// Shares the file bytes of another section (`.nv.merc.nv.global.init`).
    Alias(OutSec),
    /// An input section's bytes, written from the input itself: code placed whole in a
    /// section of its own is not copied into the module (`merge::sections`), only the words
    /// the link changed in it are kept (`relocate`).
    Input(InputBytes),
}

/// The bytes of input section `section` of object `object` (`len` of them, a multiple of 8),
/// with the 8-byte words at the offsets `changed` lists (increasing) replaced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputBytes {
    pub object: crate::ids::ObjectId,
    pub section: u32,
    pub len: u64,
    pub changed: Vec<(u32, [u8; 8])>,
}

impl InputBytes {
    /// The bytes as the output has them, given the input section's bytes.
    pub fn with_changes<'a>(&self, input: &'a [u8]) -> std::borrow::Cow<'a, [u8]> {
        if self.changed.is_empty() {
            return std::borrow::Cow::Borrowed(input);
        }
        let mut b = input.to_vec();
        apply_changes(&mut b, &self.changed);
        std::borrow::Cow::Owned(b)
    }

    /// Puts the changed words back into `code`, a copy of the input's bytes.
    pub fn put_changes(&self, code: &mut [u8]) {
        apply_changes(code, &self.changed);
    }
}

/// Writes each changed word (`InputBytes::changed`) into `bytes`.
fn apply_changes(bytes: &mut [u8], changed: &[(u32, [u8; 8])]) {
    for &(at, word) in changed {
        bytes[at as usize..at as usize + 8].copy_from_slice(&word);
    }
}

impl Content {
    pub fn size(&self) -> u64 {
        match self {
            Content::Bytes(b)
            | Content::WithSymbols { bytes: b, .. }
            | Content::MercCode { bytes: b, .. } => b.len() as u64,
            Content::NoBits(n) => *n,
            Content::Input(i) => i.len,
            Content::Relocs { rela, entries } => entries.len() as u64 * if *rela { 24 } else { 16 },
            Content::Symtab
            | Content::SymtabShndx
            | Content::Strtab
            | Content::Shstrtab
            | Content::MercSymtab
            | Content::Alias(_) => 0,
        }
    }
}

/// Groups that fix the order of section headers (nvlink's order, observed): within a group,
/// sections keep the order in which the link created them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Group {
    Tables,
    Debug,
    Notes,
    Info,
    InfoFn,
    Graph,
    Relocs,
    /// Constant banks: user `__constant__` data and the kernels' parameter banks.
    Constants,
    Text,
    Data,
    /// Shared memory goes between the initialized and the zero-filled global data.
    Shared,
    Bss,
    /// sm_110's reserved shared memory (`.nv.shared.reserved.<n>`), after the global data.
    ReservedShared,
    /// sm_100+: the `.nv.merc.*` / `.nv.capmerc.*` copy of the module.
    Mercury,
}

#[derive(Debug, Clone)]
pub struct OutSection {
    pub name: Vec<u8>,
    pub sh_type: u32,
    pub flags: u64,
    pub align: u64,
    pub entsize: u64,
    pub link: Link,
    pub info: Info,
    pub content: Content,
    pub group: Group,
    /// Its STT_SECTION symbol, when it has one.
    pub section_symbol: Option<OutSym>,
}

#[derive(Debug, Clone)]
pub struct OutSymbol {
    pub name: Vec<u8>,
    pub value: u64,
    pub size: u64,
    pub bind: u8,
    pub st_type: u8,
    pub other: u8,
    pub section: Option<OutSec>,
}

#[derive(Debug, Default)]
pub struct Module {
    pub e_type: u16,
    pub e_flags: u32,
    pub sections: IdVec<OutSec, OutSection>,
    pub symbols: IdVec<OutSym, OutSymbol>,
    /// Program headers are wanted (executable output).
    pub program_headers: bool,
    /// sm_100+ conventions: text before constant banks, symbols in creation order (locals
    /// not moved first), section symbols named, prototype strings after the symbol names.
    pub mercury: bool,
    /// Strings placed at the start of `.strtab`, before symbol names, in the order first
    /// met, each with its offset: the call prototypes (`.nv.prototype` and call-graph
    /// prototype ids are their offsets).
    pub strtab_prefix: indexmap::IndexMap<Vec<u8>, u32>,
    /// Where the next prefix string goes (after the leading NUL).
    pub strtab_prefix_end: u32,
    /// Where prototype ids sit (section, byte offset). On sm_100+ the prototype strings follow
    /// the symbol names, so the writer adds the names' length to each.
    pub prototype_fields: Vec<(OutSec, usize)>,
    /// sm_100+: the Mercury copy of each symbol (by OutSym); `.nv.merc.symtab` lists them in
    /// `.symtab`'s order, up to the first symbol that has none.
    pub merc_symbols: IdVec<OutSym, Option<OutSymbol>>,
    /// Local symbols listed among the globals, where their global input symbol stood
    /// (`-preserve-relocs` keeps file-scope `__shared__` variables this way, as nvlink does).
    pub locals_listed_as_global: hashbrown::HashSet<OutSym>,
    /// Relocation sections written although they have no entries (sm_100+: a main-half one
    /// whose Mercury twin has some, as nvlink writes them).
    pub empty_relocs_kept: hashbrown::HashSet<OutSec>,
    /// sm_100+: parameter banks that got texture/surface slots; nvlink writes these (and
    /// their section symbols) where sm_90 does, not after everything else.
    pub slotted_param_banks: hashbrown::HashSet<OutSec>,
    /// The sections made by name (tables, sections merged by name, relocation sections), by
    /// name: later uses of the name find the same section.
    pub by_name: SectionNames,
}

/// The sections made by name, each found through its own name: the table holds ids and their
/// names' hashes, not a second copy of every name (a large link makes a hundred thousand
/// sections by name). The hash is kept so that the table grows without hashing every name
/// again (long, mangled, and read from all over the module: a fifth of the serial creation
/// pass at wide-1600; room reserved for every input section up front was slower still: a
/// large table's inserts miss the cache). A section's name must not change while the table
/// lists it (`forget`).
#[derive(Default)]
pub struct SectionNames {
    table: hashbrown::HashTable<(u64, OutSec)>,
    hasher: hashbrown::DefaultHashBuilder,
}

impl std::fmt::Debug for SectionNames {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SectionNames({} sections)", self.table.len())
    }
}

impl SectionNames {
    fn hash(&self, name: &[u8]) -> u64 {
        use std::hash::BuildHasher;
        self.hasher.hash_one(name)
    }

    fn find(&self, sections: &IdVec<OutSec, OutSection>, hash: u64, name: &[u8]) -> Option<OutSec> {
        self.table
            .find(hash, |&(h, id)| h == hash && sections[id].name == name)
            .map(|&(_, id)| id)
    }

    /// Lists section `id` under its name (not listed yet), whose hash is `hash`.
    fn insert(&mut self, hash: u64, id: OutSec) {
        self.table.insert_unique(hash, (hash, id), |&(h, _)| h);
    }

    /// Takes the sections `drop` picks out of the table (before their names change).
    pub fn forget(&mut self, mut drop: impl FnMut(OutSec) -> bool) {
        self.table.retain(|&mut (_, id)| !drop(id));
    }
}

impl Module {
    /// The size of the section of this name (0 where there is none).
    pub fn section_size(&self, name: &[u8]) -> u64 {
        self.section_named(name)
            .map_or(0, |s| self.sections[s].content.size())
    }

    pub fn add_section(&mut self, s: OutSection) -> OutSec {
        self.sections.push(s)
    }
    /// The section made under this name, if any.
    pub fn section_named(&self, name: &[u8]) -> Option<OutSec> {
        self.by_name
            .find(&self.sections, self.by_name.hash(name), name)
    }

    /// Adds `s` under its name; or, where a section of that name was made before, gives
    /// that section's id and `s` back.
    pub fn add_named_section(&mut self, s: OutSection) -> (OutSec, Option<OutSection>) {
        let hash = self.by_name.hash(&s.name);
        self.add_named_section_hashed(s, hash)
    }

    /// The hash the table of sections made by name gives `name` (worked out where sections
    /// are made in parallel, then added one after another by `add_named_section_hashed`).
    pub fn name_hash(&self, name: &[u8]) -> u64 {
        self.by_name.hash(name)
    }

    /// [`Module::add_named_section`] of a section whose name's hash is `hash`
    /// ([`Module::name_hash`]).
    pub fn add_named_section_hashed(
        &mut self,
        s: OutSection,
        hash: u64,
    ) -> (OutSec, Option<OutSection>) {
        debug_assert_eq!(hash, self.by_name.hash(&s.name));
        if let Some(id) = self.by_name.find(&self.sections, hash, &s.name) {
            return (id, Some(s));
        }
        let id = self.add_section(s);
        self.by_name.insert(hash, id);
        (id, None)
    }

    /// The section of this name, made by `make` (a section of that name) on first use.
    pub fn named_section(&mut self, name: &[u8], make: impl FnOnce() -> OutSection) -> OutSec {
        let hash = self.by_name.hash(name);
        if let Some(s) = self.by_name.find(&self.sections, hash, name) {
            return s;
        }
        let made = make();
        debug_assert_eq!(made.name, name, "a section made by name has that name");
        let id = self.add_section(made);
        self.by_name.insert(hash, id);
        id
    }

    pub fn add_symbol(&mut self, s: OutSymbol) -> OutSym {
        self.symbols.push(s)
    }
    /// Adds a string to the `.strtab` prefix (once) and returns its offset there.
    pub fn prefix_string(&mut self, s: &[u8]) -> u32 {
        if let Some(&off) = self.strtab_prefix.get(s) {
            return off;
        }
        let off = self.strtab_prefix_end.max(1);
        self.strtab_prefix_end = off + s.len() as u32 + 1;
        self.strtab_prefix.insert(s.to_vec(), off);
        off
    }

    /// Past 0xff00 sections, symbols name theirs through `.symtab_shndx` (SHN_XINDEX).
    pub fn add_symtab_shndx_if_needed(&mut self) {
        if self.sections.len() + 2 < 0xff00 {
            return;
        }
        self.add_section(OutSection {
            name: b".symtab_shndx".to_vec(),
            sh_type: crate::elf::SHT_SYMTAB_SHNDX,
            flags: 0,
            align: 4,
            entsize: 4,
            link: Link::Symtab,
            info: Info::None,
            content: Content::SymtabShndx,
            // (nvlink lists it after the debug sections, before the notes.)
            group: Group::Debug,
            section_symbol: None,
        });
    }

    pub fn is_local(&self, id: OutSym) -> bool {
        self.symbols[id].bind == crate::elf::STB_LOCAL
    }

    /// Whether the symbol is listed before the first global.
    pub fn listed_as_local(&self, id: OutSym) -> bool {
        self.is_local(id) && !self.locals_listed_as_global.contains(&id)
    }
}

/// A relocation section for `target`: REL, RELA, or the `.nv.resolvedrela<target>` records of
/// `-preserve-relocs` (RELA-shaped).
pub fn reloc_section(
    name: Vec<u8>,
    sh_type: u32,
    target: OutSec,
    entries: Vec<OutReloc>,
) -> OutSection {
    let rela = crate::elf::type_is_rela(sh_type);
    OutSection {
        name,
        sh_type,
        flags: crate::elf::SHF_INFO_LINK,
        align: 8,
        entsize: if rela { 24 } else { 16 },
        link: Link::Symtab,
        info: Info::Section(target),
        content: Content::Relocs { rela, entries },
        group: Group::Relocs,
        section_symbol: None,
    }
}

/// `v` rounded up to a multiple of `a` (saturating: damaged inputs can ask for absurd values,
/// which the size check before writing then refuses).
pub fn align_up(v: u64, a: u64) -> u64 {
    if a <= 1 {
        v
    } else {
        v.div_ceil(a).saturating_mul(a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(n: usize) -> Vec<u8> {
        (0..n as u8).collect()
    }

    #[test]
    fn unchanged_code_has_no_changed_words_and_is_written_as_it_is() {
        let old = words(128);
        let i = InputBytes {
            object: crate::ids::ObjectId::from_index(0),
            section: 1,
            len: 128,
            changed: Vec::new(),
        };
        assert!(matches!(
            i.with_changes(&old),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    #[test]
    fn the_changed_words_put_back_give_the_patched_bytes() {
        let old = words(96);
        let mut new = old.clone();
        new[8..16].fill(0);
        new[90] = 1;
        let mut last = [88, 89, 90, 91, 92, 93, 94, 95];
        last[2] = 1;
        let i = InputBytes {
            object: crate::ids::ObjectId::from_index(0),
            section: 1,
            len: 96,
            changed: vec![(8, [0; 8]), (88, last)],
        };
        assert_eq!(&i.with_changes(&old)[..], &new[..]);
    }

    fn named(m: &mut Module, name: &[u8]) -> OutSec {
        m.named_section(name, || {
            reloc_section(
                name.to_vec(),
                crate::elf::SHT_REL,
                OutSec::from_index(0),
                Vec::new(),
            )
        })
    }

    #[test]
    fn a_name_made_once_is_found_again_after_the_table_grows() {
        let mut m = Module::default();
        let names: Vec<Vec<u8>> = (0..5000)
            .map(|i| format!(".rel.text.f{i}").into_bytes())
            .collect();
        let ids: Vec<OutSec> = names.iter().map(|n| named(&mut m, n)).collect();
        assert_eq!(m.sections.len(), 5000);
        for (n, &id) in names.iter().zip(&ids) {
            assert_eq!(named(&mut m, n), id);
            assert_eq!(m.section_named(n), Some(id));
        }
        assert_eq!(m.sections.len(), 5000, "no name made twice");
    }

    #[test]
    fn a_forgotten_name_is_made_anew() {
        let mut m = Module::default();
        let first = named(&mut m, b".rel.text.f");
        let other = named(&mut m, b".rel.text.g");
        m.by_name.forget(|id| id == first);
        assert_eq!(m.section_named(b".rel.text.f"), None);
        assert_eq!(m.section_named(b".rel.text.g"), Some(other));
        assert_ne!(named(&mut m, b".rel.text.f"), first);
    }
}
