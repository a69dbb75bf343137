//! The canonical, index-free text form of a cubin (what `cubin-dump` prints and what the
//! compare mode diffs). Everything that refers to a section or symbol by index is printed by
//! name; file offsets are left out. The text is a list of *items*: an unindented heading line
//! (`header`, `section NAME`, `symbol TABLE NAME`, `phdr N`) followed by indented body lines.
//! Body lines starting with `  * ` are entries (relocations, attribute records, call-graph
//! edges, notes) whose order a caller may choose to ignore; `    ` lines are raw bytes.

use crate::diag::{Context, Result};
use crate::elf::read::SymSection;
use crate::elf::{names, notes, nvinfo, *};
use crate::reloc::table as reloc_table;
use std::collections::BTreeSet;
use std::fmt::Write as _;

pub const DUMP_VERSION_LINE: &str = "cubin-dump 1";

/// Numbers the dump met but has no name for ("relocation type 0x4d", "EIATTR 0x61", …).
/// Every one is also printed in hex where it occurs; tests assert that the set stays empty
/// over the corpus.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Unknowns(pub BTreeSet<String>);

pub struct Dump {
    pub text: String,
    pub unknowns: Unknowns,
}

/// Dumps a parsed cubin.
pub fn dump(c: &Cubin<'_>) -> Result<Dump> {
    let mut d = Dumper {
        c,
        out: String::new(),
        unknowns: Unknowns::default(),
        sec_keys: Vec::new(),
        sym_keys: hashbrown::HashMap::new(),
    };
    d.sec_keys = section_keys(c);
    d.sym_keys = c
        .symtabs
        .iter()
        .map(|t| (t.section, symbol_keys(t, &d.sec_keys)))
        .collect();
    d.run()?;
    Ok(Dump {
        text: d.out,
        unknowns: d.unknowns,
    })
}

/// Parses and dumps raw bytes.
pub fn dump_bytes(bytes: &[u8]) -> Result<Dump> {
    let c = Cubin::parse(bytes)?;
    dump(&c)
}

/// Section names made unique (`.x`, `.x#2`, …) in file order.
fn section_keys(c: &Cubin<'_>) -> Vec<String> {
    let mut seen = hashbrown::HashMap::<String, u32>::new();
    c.sections
        .iter()
        .map(|s| {
            let base = if s.index == 0 {
                "[null]".to_string()
            } else {
                s.name_str().into_owned()
            };
            let n = seen.entry(base.clone()).or_insert(0);
            *n += 1;
            if *n == 1 {
                base
            } else {
                format!("{base}#{n}")
            }
        })
        .collect()
}

/// Symbol names made unique (`f`, `f#2`, …) in table order, section symbols as
/// `[section X]`: references to two local functions of one name (one per object) then say
/// which one they mean.
fn symbol_keys(t: &SymbolTable<'_>, sec_keys: &[String]) -> Vec<String> {
    let mut seen = hashbrown::HashMap::<String, u32>::new();
    t.symbols
        .iter()
        .enumerate()
        .map(|(i, s)| {
            if i == 0 {
                return "-".to_string();
            }
            let base = if s.st_type == STT_SECTION {
                match s.section {
                    SymSection::Index(i) => match sec_keys.get(i as usize) {
                        Some(k) => format!("[section {k}]"),
                        None => format!("[section [bad section {i}]]"),
                    },
                    _ => "[section ?]".into(),
                }
            } else {
                s.name_str().into_owned()
            };
            let n = seen.entry(base.clone()).or_insert(0);
            *n += 1;
            if *n == 1 {
                base
            } else {
                format!("{base}#{n}")
            }
        })
        .collect()
}

struct Dumper<'a, 'data> {
    c: &'a Cubin<'data>,
    out: String,
    unknowns: Unknowns,
    sec_keys: Vec<String>,
    /// Per symbol table (by its section index): `symbol_keys`.
    sym_keys: hashbrown::HashMap<u32, Vec<String>>,
}

/// Sections larger than this are dumped as a digest per `DIGEST_BLOCK` bytes: in hex, a
/// 2 GiB `.nv.global.init` would make a dump of 7 GB, and a comparison of two of them needs
/// more memory than most machines have.
const HEX_LIMIT: usize = 16 << 20;
const DIGEST_BLOCK: usize = 64 << 10;

fn hex_lines(out: &mut String, bytes: &[u8]) {
    if bytes.len() > HEX_LIMIT {
        for (i, block) in bytes.chunks(DIGEST_BLOCK).enumerate() {
            let _ = writeln!(
                out,
                "    {:08x}: {} bytes, FNV-1a {:016x}",
                i * DIGEST_BLOCK,
                block.len(),
                fnv1a(block)
            );
        }
        return;
    }
    for (i, chunk) in bytes.chunks(16).enumerate() {
        let _ = write!(out, "    {:04x}:", i * 16);
        for b in chunk {
            let _ = write!(out, " {b:02x}");
        }
        out.push('\n');
    }
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

fn signed_hex(v: i64) -> String {
    if v < 0 {
        format!("-{:#x}", v.unsigned_abs())
    } else {
        format!("+{v:#x}")
    }
}

impl<'a, 'data> Dumper<'a, 'data> {
    /// Records a number without a name and returns the hex spelling printed in its place.
    fn unknown(&mut self, kind: &str, value: u64) -> String {
        self.unknowns.0.insert(format!("{kind} {value:#x}"));
        format!("{value:#x}")
    }

    fn sec_name(&self, index: u32) -> String {
        match self.sec_keys.get(index as usize) {
            Some(k) => k.clone(),
            None => format!("[bad section {index}]"),
        }
    }

    /// A symbol as relocations and records refer to it: its key in the symbol listing (its
    /// name, `#n` for the n-th of a name, or `[section X]` for a section symbol).
    fn sym_ref(&self, table: Option<&SymbolTable<'data>>, index: u32) -> String {
        if index == 0 {
            return "-".into();
        }
        let Some(t) = table else {
            return format!("[symbol {index} without symbol table]");
        };
        match self
            .sym_keys
            .get(&t.section)
            .and_then(|k| k.get(index as usize))
        {
            Some(k) => k.clone(),
            None => format!("[bad symbol {index}]"),
        }
    }

    /// A prototype id is the offset of the prototype's string in the symbol table's string
    /// table: shown as that string (where it lies is layout, not meaning); 0 means none.
    fn proto_ref(&self, table: Option<&SymbolTable<'data>>, id: u32) -> String {
        let text = table
            .filter(|_| id != 0)
            .and_then(|t| self.c.sections.get(t.section as usize))
            .and_then(|st| self.c.sections.get(st.link as usize))
            .and_then(|strtab| strtab.bytes().get(id as usize..))
            .and_then(|b| b.iter().position(|&c| c == 0).map(|n| &b[..n]));
        match text {
            Some(t) => format!("{:?}", String::from_utf8_lossy(t)),
            None => id.to_string(),
        }
    }

    fn run(&mut self) -> Result<()> {
        let c = self.c;
        let h = &c.header;
        let _ = writeln!(self.out, "{DUMP_VERSION_LINE}");
        self.out.push_str("header\n");
        let _ = writeln!(
            self.out,
            "  osabi {:#x} abiversion {}",
            h.os_abi, h.abi_version
        );
        let et = match names::elf_type(h.e_type) {
            Some(n) => n.to_string(),
            None => self.unknown("e_type", h.e_type as u64),
        };
        let _ = writeln!(
            self.out,
            "  type {et} machine {} version {} entry {:#x} phentsize {}",
            h.e_machine, h.e_version, h.e_entry, h.e_phentsize
        );
        let fl = crate::arch::EFlags { raw: h.e_flags };
        let _ = writeln!(self.out, "  flags {:#010x} {}", h.e_flags, fl.describe());

        for s in c.sections.iter().skip(1) {
            self.section(s)?;
        }
        for t in &c.symtabs {
            self.symbols(t);
        }
        for (i, p) in c.segments.iter().enumerate() {
            self.segment(i, p);
        }
        Ok(())
    }

    fn section(&mut self, s: &Section<'data>) -> Result<()> {
        self.section_header(s);
        self.section_links(s);
        self.section_contents(s)
    }

    /// The section's name, type, flags, alignment, entry size, size and address.
    fn section_header(&mut self, s: &Section<'data>) {
        let key = self.sec_name(s.index);
        let _ = writeln!(self.out, "section {key}");
        let ty = match names::section_type(s.sh_type) {
            Some(n) => n.to_string(),
            None => self.unknown("section type", s.sh_type as u64),
        };
        let derived_size = matches!(s.sh_type, SHT_STRTAB | SHT_SYMTAB | SHT_CUDA_MERC_SYMTAB);
        let mut line = format!(
            "  type {ty} flags {} align {} entsize {}",
            names::section_flags(s.flags),
            s.align,
            s.entsize
        );
        if !derived_size {
            let _ = write!(line, " size {:#x}", s.size);
        }
        if s.addr != 0 {
            let _ = write!(line, " addr {:#x}", s.addr);
        }
        let _ = writeln!(self.out, "{line}");
    }

    fn section_links(&mut self, s: &Section<'data>) {
        let c = self.c;
        // sh_link is a section index; sh_info is a section index (SHF_INFO_LINK, relocation
        // sections), the first global's index (symbol tables) or, for code, the function's
        // symbol index.
        let mut links = String::new();
        if s.link != 0 {
            let _ = write!(links, " link {}", self.sec_name(s.link));
        }
        if s.info != 0 {
            if matches!(s.sh_type, SHT_SYMTAB | SHT_CUDA_MERC_SYMTAB) {
                let _ = write!(links, " info first-global {}", s.info);
            } else if s.flags & SHF_INFO_LINK != 0
                || type_is_rela(s.sh_type)
                || s.sh_type == SHT_REL
            {
                let _ = write!(links, " info section {}", self.sec_name(s.info));
            } else if s.flags & SHF_EXECINSTR != 0 || s.sh_type == SHT_CUDA_CAPMERC_TEXT {
                // Code: the function's symbol index in the low 24 bits; sm_75–sm_89 keep the
                // function's register count in the top byte.
                let t = c.symtab_for(s);
                let _ = write!(
                    links,
                    " info symbol {}",
                    self.sym_ref(t, s.info & 0xff_ffff)
                );
                if s.info >> 24 != 0 {
                    let _ = write!(links, " regs {}", s.info >> 24);
                }
            } else {
                let _ = write!(links, " info {:#x}", s.info);
            }
        }
        if !links.is_empty() {
            let _ = writeln!(self.out, "  {}", links.trim_start());
        }
    }

    /// The contents, by section type: symbol count, relocations, records, call graph,
    /// prototypes, notes, or the bytes in hex.
    fn section_contents(&mut self, s: &Section<'data>) -> Result<()> {
        let c = self.c;
        let ctx = || format!("section '{}'", s.name_str());
        match s.sh_type {
            SHT_NULL | SHT_STRTAB => {}
            SHT_SYMTAB | SHT_CUDA_MERC_SYMTAB => {
                let n = c
                    .symtabs
                    .iter()
                    .find(|t| t.section == s.index)
                    .map(|t| t.symbols.len())
                    .unwrap_or(0);
                let _ = writeln!(self.out, "  symbols {}", n.saturating_sub(1));
            }
            t if t == SHT_REL || type_is_rela(t) => {
                let relocs = c.relocations(s)?;
                let t = c.symtab_for(s);
                for r in relocs {
                    let tn = match reloc_table::name(r.r_type) {
                        Some(n) => n.to_string(),
                        None => self.unknown("relocation type", r.r_type as u64),
                    };
                    let sym = self.sym_ref(t, r.sym);
                    let add = r.addend.map(signed_hex).unwrap_or_default();
                    let _ = writeln!(self.out, "  * {:#x} {tn} {sym}{add}", r.offset);
                }
            }
            SHT_CUDA_INFO | SHT_CUDA_MERC_INFO | SHT_CUDA_COMPAT_INFO => {
                let recs = nvinfo::parse_records(s.bytes()).with_context(ctx)?;
                let compat = s.sh_type == SHT_CUDA_COMPAT_INFO;
                let t = c.symtab_for(s);
                for r in recs {
                    self.record(&r, compat, t);
                }
            }
            SHT_CUDA_CALLGRAPH | SHT_CUDA_MERC_CALLGRAPH => self.callgraph(s),
            SHT_CUDA_PROTOTYPE | SHT_CUDA_MERC_PROTOTYPE => {
                let t = c.symtab_for(s);
                let words = words_of(s.bytes());
                for p in words.chunks(2) {
                    if let [sym, proto] = p {
                        let _ = writeln!(
                            self.out,
                            "  * {} proto {}",
                            self.sym_ref(t, *sym),
                            self.proto_ref(t, *proto)
                        );
                    }
                }
                if words.len() % 2 != 0 || s.bytes().len() % 4 != 0 {
                    hex_lines(&mut self.out, s.bytes());
                }
            }
            SHT_NOTE => {
                let ns = notes::parse_notes(s.bytes()).with_context(ctx)?;
                for n in ns {
                    self.note(&n)?;
                }
            }
            _ => {
                if let Some(b) = s.data {
                    hex_lines(&mut self.out, b);
                }
            }
        }
        Ok(())
    }

    fn record(&mut self, r: &nvinfo::Record<'_>, compat: bool, t: Option<&SymbolTable<'data>>) {
        let name = if compat {
            nvinfo::compat_name(r.attr)
        } else {
            nvinfo::attr_name(r.attr)
        };
        let name = match name {
            Some(n) => n.to_string(),
            None => {
                let kind = if compat { "EICOMPAT" } else { "EIATTR" };
                self.unknown(kind, r.attr as u64)
            }
        };
        let fmt = nvinfo::format_name(r.format);
        let body = match r.value {
            nvinfo::Value::None => String::new(),
            nvinfo::Value::Byte(b) => format!(" {b:#x}"),
            nvinfo::Value::Half(h) => format!(" {h:#x}"),
            nvinfo::Value::Bytes(b) => {
                let w = words_of(b);
                match nvinfo::payload_kind(r.attr, b.len()) {
                    nvinfo::Payload::SymbolValue => {
                        format!(" {} {:#x}", self.sym_ref(t, w[0]), w[1])
                    }
                    nvinfo::Payload::Symbols => {
                        let names: Vec<String> = w.iter().map(|&i| self.sym_ref(t, i)).collect();
                        format!(" [{}]", names.join(", "))
                    }
                    nvinfo::Payload::ParamCbank => {
                        format!(
                            " {} offset {:#x} size {:#x}",
                            self.sym_ref(t, w[0]),
                            w[1] & 0xffff,
                            w[1] >> 16
                        )
                    }
                    nvinfo::Payload::Words if b.len() % 4 == 0 => {
                        let ws: Vec<String> = w.iter().map(|x| format!("{x:#x}")).collect();
                        format!(" [{}]", ws.join(" "))
                    }
                    nvinfo::Payload::Words => {
                        let bs: Vec<String> = b.iter().map(|x| format!("{x:02x}")).collect();
                        format!(" bytes {}", bs.join(""))
                    }
                }
            }
        };
        let _ = writeln!(self.out, "  * {name} {fmt}{body}");
    }

    fn callgraph(&mut self, s: &Section<'data>) {
        let t = self.c.symtab_for(s);
        for (block, a, b) in crate::elf::callgraph_entries(s.bytes()) {
            let line = match block {
                0 => format!("  * call {} -> {}", self.sym_ref(t, a), self.sym_ref(t, b)),
                1 => format!(
                    "  * address-taken {} proto {}",
                    self.sym_ref(t, a),
                    self.proto_ref(t, b)
                ),
                2 => format!(
                    "  * indirect-call-in {} proto {}",
                    self.sym_ref(t, a),
                    self.proto_ref(t, b)
                ),
                _ => format!(
                    "  * indirect-target {} -> {}",
                    self.sym_ref(t, a),
                    self.sym_ref(t, b)
                ),
            };
            let _ = writeln!(self.out, "{line}");
        }
        // (A trailing partial pair is shown as bytes.)
        if s.bytes().len() % 8 != 0 {
            hex_lines(&mut self.out, s.bytes());
        }
    }

    fn note(&mut self, n: &notes::Note<'_>) -> Result<()> {
        let owner = String::from_utf8_lossy(n.name);
        match n.n_type {
            notes::NT_CUDA_TKINFO => {
                let ti = notes::parse_tkinfo(n.desc)?;
                let q: Vec<String> = ti
                    .strings
                    .iter()
                    .map(|s| format!("{:?}", String::from_utf8_lossy(s)))
                    .collect();
                let _ = writeln!(
                    self.out,
                    "  * note {owner:?} tkinfo v{} file {} tool {} version {} branch {} args {}",
                    ti.version, q[0], q[1], q[2], q[3], q[4]
                );
            }
            notes::NT_CUDA_CUINFO => {
                let ci = notes::parse_cuinfo(n.desc)?;
                let _ = writeln!(
                    self.out,
                    "  * note {owner:?} cuinfo v{} virtual-sm {} toolkit {:#x} reserved {:#x}",
                    ci.version, ci.virtual_sm, ci.toolkit, ci.reserved
                );
            }
            t => {
                let hex: String = n.desc.iter().map(|b| format!("{b:02x}")).collect();
                let _ = writeln!(self.out, "  * note {owner:?} type {t} desc {hex}");
            }
        }
        Ok(())
    }

    fn symbols(&mut self, t: &SymbolTable<'data>) {
        let table = self.sec_name(t.section);
        for (i, s) in t.symbols.iter().enumerate().skip(1) {
            let key = self.sym_ref(Some(t), i as u32);
            let bind = match names::symbol_bind(s.bind) {
                Some(b) => b.to_string(),
                None => self.unknown("symbol binding", s.bind as u64),
            };
            let ty = match names::symbol_type(s.st_type) {
                Some(b) => b.to_string(),
                None => self.unknown("symbol type", s.st_type as u64),
            };
            let sec = match s.section {
                SymSection::Undefined => "UND".to_string(),
                SymSection::Absolute => "ABS".to_string(),
                SymSection::Common => "COMMON".to_string(),
                SymSection::Index(i) => self.sec_name(i),
                SymSection::Reserved(r) => format!("{r:#x}"),
            };
            let _ = writeln!(self.out, "symbol {table} {key}");
            let _ = writeln!(
                self.out,
                "  bind {bind} type {ty} other {:#04x} ({}) section {sec} value {:#x} size {:#x}",
                s.other,
                names::symbol_other(s.other),
                s.value,
                s.size
            );
        }
    }

    fn segment(&mut self, i: usize, p: &crate::elf::read::Segment) {
        let ty = match names::segment_type(p.p_type) {
            Some(n) => n.to_string(),
            None => self.unknown("segment type", p.p_type as u64),
        };
        let _ = writeln!(self.out, "phdr {i}");
        let _ = writeln!(
            self.out,
            "  type {ty} flags {} filesz {:#x} memsz {:#x} align {:#x} vaddr {:#x} paddr {:#x}",
            names::segment_flags(p.flags),
            p.filesz,
            p.memsz,
            p.align,
            p.vaddr,
            p.paddr
        );
        let end = p.offset.saturating_add(p.filesz);
        let h = &self.c.header;
        let phdr_size = self.c.segments.len() as u64 * 56;
        let mut covers = Vec::new();
        if p.filesz > 0 && h.e_phoff >= p.offset && h.e_phoff.saturating_add(phdr_size) <= end {
            covers.push("[program headers]".to_string());
        }
        for s in self.c.sections.iter().skip(1) {
            if s.data.is_some() && s.size > 0 && s.offset >= p.offset && s.offset + s.size <= end {
                covers.push(self.sec_name(s.index));
            }
        }
        if !covers.is_empty() {
            let _ = writeln!(self.out, "  covers {}", covers.join(" "));
        }
        let pad = self.padding_before_zero_filled(p);
        if pad > 0 {
            let _ = writeln!(
                self.out,
                "  padding {pad:#x} before its zero-filled sections"
            );
        }
    }

    /// The bytes of a segment's file part after its last initialized section (or its
    /// start), up to its zero-filled sections, which sit at its end: padding their
    /// alignment puts there, which moves with every earlier section's size.
    fn padding_before_zero_filled(&self, p: &crate::elf::read::Segment) -> u64 {
        let end = p.offset.saturating_add(p.filesz);
        let in_part = |s: &&crate::elf::read::Section<'_>| s.offset >= p.offset && s.offset <= end;
        let zero_filled_at_end =
            self.c.sections.iter().skip(1).filter(in_part).any(|s| {
                s.data.is_none() && s.flags & crate::elf::SHF_ALLOC != 0 && s.offset == end
            });
        if p.filesz == 0 || !zero_filled_at_end {
            return 0;
        }
        let data_end = self
            .c
            .sections
            .iter()
            .skip(1)
            .filter(in_part)
            .filter(|s| s.data.is_some() && s.flags & crate::elf::SHF_ALLOC != 0)
            .map(|s| s.offset + s.size)
            .filter(|&e| e <= end)
            .max()
            .unwrap_or(p.offset);
        end - data_end
    }
}

fn words_of(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}
