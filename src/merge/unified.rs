//! `-r` with unified functions and variables (PTX `.attribute(.unified(uuid1, uuid2))`,
//! sm_90+): the `.nv.uft.entry` / `.nv.udt.entry` tables, as nvlink's partial link writes them.
//!
//! Each table is an array of 32-byte records `{u32 symbol; u32 flags; u64 offset; u64 uuid1;
//! u64 uuid2}`. The output concatenates the inputs' records in input order with the symbol
//! index rewritten, the flags 7 (ptxas writes 1, nvlink's partial link 7), and the UDT
//! offsets (a variable's place in `.nv.udt`) rebased onto the merged `.nv.udt`. The jump
//! slots (`.nv.uft.rel.<fn>`, with their stub functions) and `.nv.udt` itself go through the
//! ordinary code and data paths.
//!
//! nvlink checks nothing here; cubin-ld refuses what would make the final link's tables
//! ambiguous: one UUID on two entries, and a UFT whose jump slots and entries do not pair
//! up. (Two UUIDs whose halves XOR to the same value link, as in nvlink: real programs have
//! them.)

use super::Builder;
use crate::diag::{Error, Result};
use crate::elf::*;
use crate::ids::ObjectId;
use crate::output::*;
use hashbrown::HashMap;

/// The two tables, in the order nvlink writes them.
const TABLES: [&[u8]; 2] = [b".nv.uft.entry", b".nv.udt.entry"];
const RECORD: usize = 32;
/// The flags word of a record in a partial link's output.
const LINKED_FLAGS: u32 = 7;

/// Where the merged tables stand while the link runs.
#[derive(Default)]
pub(crate) struct Tables {
    /// Section symbols made before their section exists (they come earlier in `.symtab`).
    symbols: HashMap<&'static [u8], OutSym>,
    /// Every record so far: (table, uuid1, uuid2, owner's name, object name).
    seen: Vec<(usize, u64, u64, Vec<u8>, String)>,
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap_or([0; 8]))
}

impl Builder<'_, '_> {
    /// The tables' section symbols, with the object's other section symbols (nvlink lists
    /// them after `.debug_frame`'s).
    pub(crate) fn unified_table_symbols(&mut self, oi: ObjectId) {
        if !self.p.policy.relocatable() {
            return;
        }
        for name in TABLES {
            if self.p.input_section_by_name(oi, name).is_none()
                || self.p.unified.symbols.contains_key(name)
            {
                continue;
            }
            let id = self.new_section_symbol(None);
            self.p.unified.symbols.insert(name, id);
        }
    }

    /// Appends object `oi`'s records to the output tables (made on first use, among the
    /// per-function sections: after the first object's kernels' `.nv.info.<k>`).
    pub(crate) fn unified_tables(&mut self, oi: ObjectId) -> Result<()> {
        if !self.p.policy.relocatable() {
            return Ok(());
        }
        let objects = self.p.objects;
        let o = &objects[oi];
        let udt_base = self
            .p
            .input_section_by_name(oi, b".nv.udt")
            .and_then(|si| self.p.placed[oi][si])
            .map_or(0, |p| p.offset);
        for (table, name) in TABLES.into_iter().enumerate() {
            let Some(si) = self.p.input_section_by_name(oi, name) else {
                continue;
            };
            let s = &o.cubin.sections[si];
            let b = s.bytes();
            if b.len() % RECORD != 0 {
                return Err(Error::new(format!(
                    "'{}': section '{}' is {:#x} bytes, not a whole number of {RECORD}-byte records",
                    o.name,
                    s.name_str(),
                    b.len()
                )));
            }
            let mut bytes = Vec::with_capacity(b.len());
            let mut slots = Vec::new();
            for r in b.chunks_exact(RECORD) {
                let sym = u32_at(r, 0);
                let Some(out) = self.p.out_sym(oi, sym) else {
                    return Err(Error::new(format!(
                        "'{}': section '{}' names symbol {sym}, which the object does not define",
                        o.name,
                        s.name_str()
                    )));
                };
                let (uuid1, uuid2) = (u64_at(r, 16), u64_at(r, 24));
                self.p.unified.seen.push((
                    table,
                    uuid1,
                    uuid2,
                    self.m.symbols[out].name.clone(),
                    o.name.clone(),
                ));
                let offset = u64_at(r, 8) + if table == 1 { udt_base } else { 0 };
                slots.push((bytes.len(), out));
                bytes.extend_from_slice(&0u32.to_le_bytes());
                bytes.extend_from_slice(&LINKED_FLAGS.to_le_bytes());
                bytes.extend_from_slice(&offset.to_le_bytes());
                bytes.extend_from_slice(&r[16..32]);
            }
            let (sh_type, flags, align) = (s.sh_type, s.flags, s.align);
            let id = self.m.named_section(name, || OutSection {
                name: name.to_vec(),
                sh_type,
                flags,
                align,
                entsize: RECORD as u64,
                link: Link::Symtab,
                info: Info::None,
                content: Content::WithSymbols {
                    bytes: Vec::new(),
                    slots: Vec::new(),
                },
                group: Group::InfoFn,
                section_symbol: None,
            });
            if let Some(&sym) = self.p.unified.symbols.get(name) {
                self.m.symbols[sym].section = Some(id);
                self.m.sections[id].section_symbol = Some(sym);
            }
            if let Content::WithSymbols {
                bytes: out,
                slots: out_slots,
            } = &mut self.m.sections[id].content
            {
                let base = out.len();
                out.extend(bytes);
                out_slots.extend(slots.into_iter().map(|(at, s)| (base + at, s)));
            }
        }
        Ok(())
    }

    /// The checks on the merged tables (after every object's records are in).
    pub(crate) fn check_unified_tables(&self) -> Result<()> {
        let mut by_uuid: HashMap<(usize, u64, u64), usize> = HashMap::new();
        for (i, (table, u1, u2, owner, obj)) in self.p.unified.seen.iter().enumerate() {
            let what = if *table == 0 { "function" } else { "variable" };
            let describe = |k: usize| {
                let (_, _, _, o, f) = &self.p.unified.seen[k];
                format!("'{}' ('{f}')", String::from_utf8_lossy(o))
            };
            if let Some(&k) = by_uuid.get(&(*table, *u1, *u2)) {
                return Err(Error::new(format!(
                    "duplicate unified {what} id ({u1:#x}, {u2:#x}): {} and '{}' ('{obj}')",
                    describe(k),
                    String::from_utf8_lossy(owner)
                )));
            }
            by_uuid.insert((*table, *u1, *u2), i);
        }
        let entries = self.p.unified.seen.iter().filter(|e| e.0 == 0).count();
        let slots = self
            .m
            .sections
            .iter()
            .filter(|s| is_jump_slot(s.sh_type, &s.name))
            .count();
        if slots != entries {
            return Err(Error::new(format!(
                "the unified function table has {slots} jump slot(s) (.nv.uft.rel.*) but {entries} \
                 entr{} in .nv.uft.entry; {}",
                if entries == 1 { "y" } else { "ies" },
                self.unpaired_tables()
            )));
        }
        Ok(())
    }

    /// Which inputs the unpaired table comes from: those whose own jump slots and entries
    /// differ in number, or else (the counts differ only once merged) every input that
    /// holds the table.
    fn unpaired_tables(&self) -> String {
        let counts: Vec<(&str, usize, usize)> = self
            .p
            .objects
            .iter()
            .map(|o| {
                let slots = o
                    .cubin
                    .sections
                    .iter()
                    .filter(|s| is_jump_slot(s.sh_type, s.name))
                    .count();
                let entries = self
                    .p
                    .unified
                    .seen
                    .iter()
                    .filter(|e| e.0 == 0 && e.4 == o.name)
                    .count();
                (o.name.as_str(), slots, entries)
            })
            .filter(|&(_, slots, entries)| slots + entries > 0)
            .collect();
        let unpaired: Vec<String> = counts
            .iter()
            .filter(|c| c.1 != c.2)
            .map(|(name, slots, entries)| format!("'{name}' has {slots} and {entries}"))
            .collect();
        if unpaired.is_empty() {
            let all: Vec<String> = counts.iter().map(|c| format!("'{}'", c.0)).collect();
            format!(
                "each input pairs them ({}), but not once merged",
                all.join(", ")
            )
        } else {
            unpaired.join(", ")
        }
    }
}

fn is_jump_slot(sh_type: u32, name: &[u8]) -> bool {
    sh_type == SHT_CUDA_UFT && name.starts_with(b".nv.uft.rel.")
}
