//! The notes and the ELF header's flags: `.note.nv.tkinfo` (the tool and its command line) and
//! `.note.nv.cuinfo` (the toolkit), as nvlink writes them.

use super::{Builder, Options};
use crate::diag::Result;
use crate::elf::*;
use crate::object::{InputObject, SectionKind};
use crate::output::*;

/// The toolkit version (13.5) nvlink writes into the CUDA information note it makes.
use crate::elf::notes::CUINFO_TOOLKIT_VERSION;

/// The output's e_flags: the first input's (the top byte is the index of `.note.nv.cuinfo`,
/// which the writer fills in). sm_100+ code linked for a later SM of its family (sm_100 into
/// sm_103) is marked for the target.
pub(super) fn e_flags(objects: &[InputObject<'_>], opts: &Options) -> u32 {
    let flags = objects.first().map_or_else(
        || ((opts.policy.sm() & 0xff) << 8) | if opts.policy.mercury() { 2 } else { 4 },
        |o| o.cubin.header.e_flags,
    );
    if opts.policy.mercury() {
        (flags & !0xff00) | ((opts.policy.sm() & 0xff) << 8)
    } else {
        flags
    }
}

impl Builder<'_, '_> {
    pub(super) fn create_notes(&mut self, opts: &Options) -> Result<()> {
        let mut tk = Vec::new();
        push_tkinfo(
            &mut tk,
            &opts.tool_file,
            "cubin-ld",
            &format!("cubin-ld {}", env!("CARGO_PKG_VERSION")),
            "",
            &opts.tool_args,
        );
        // The module's CUDA information note is the one with the lowest virtual SM (the
        // first of those).
        let vsm = |b: &[u8]| {
            crate::elf::notes::parse_notes(b)
                .ok()
                .and_then(|n| {
                    n.first()
                        .and_then(|n| crate::elf::notes::parse_cuinfo(n.desc).ok())
                })
                .map(|c| c.virtual_sm)
                .unwrap_or(u16::MAX)
        };
        let mut lowest: Option<(&crate::elf::read::Section<'_>, u16)> = None;
        for o in self.p.objects {
            // (The notes found by their one-byte kinds: a large link's section headers are
            // tens of megabytes, read here on one thread.)
            for (_, s) in o.sections_of(SectionKind::Note) {
                // A relocatable link keeps only its own record.
                if s.name == b".note.nv.tkinfo" {
                    if !opts.policy.relocatable() {
                        tk.extend_from_slice(s.bytes());
                    }
                } else if s.name == b".note.nv.cuinfo" {
                    let v = vsm(s.bytes());
                    if lowest.is_none_or(|(_, low)| v < low) {
                        lowest = Some((s, v));
                    }
                }
            }
        }
        // (The toolkit it names is nvlink's own, whatever the input's: black-box, an input of
        // 13.2 linked alone, in every mode.)
        let mut cuinfo: Option<(Vec<u8>, u64)> = lowest.map(|(s, _)| {
            let mut bytes = s.bytes().to_vec();
            if let Some(at) = crate::elf::notes::cuinfo_toolkit_offset(&bytes) {
                bytes[at..at + 2].copy_from_slice(&CUINFO_TOOLKIT_VERSION.to_le_bytes());
            }
            (bytes, s.flags)
        });
        // A link with no device code at all (nvcc links whole-program objects too) still
        // describes its target.
        if cuinfo.is_none() && self.p.objects.is_empty() && !opts.policy.relocatable() {
            let mut n = Vec::with_capacity(0x20);
            for w in [12u32, 8, 1000] {
                n.extend_from_slice(&w.to_le_bytes());
            }
            n.extend_from_slice(b"NVIDIA Corp\0");
            for h in [2u16, opts.policy.sm() as u16, CUINFO_TOOLKIT_VERSION, 0] {
                n.extend_from_slice(&h.to_le_bytes());
            }
            // sh_info names `.nv.compat`, which exists from sm_90 on.
            let link = if opts.policy.sm() >= 90 {
                SHF_INFO_LINK
            } else {
                0
            };
            cuinfo = Some((n, link | 0x100_0000));
        }
        let tk_id = self.m.named_section(b".note.nv.tkinfo", || OutSection {
            name: b".note.nv.tkinfo".to_vec(),
            sh_type: SHT_NOTE,
            flags: 0x200_0000,
            align: 4,
            entsize: 0,
            link: Link::None,
            info: Info::None,
            content: Content::Bytes(tk),
            group: Group::Notes,
            section_symbol: None,
        });
        self.section_symbol(tk_id);
        // sh_info of the CUDA information note names `.nv.compat`, created later.
        if let Some((ci, flags)) = cuinfo {
            let ci_id = self.m.named_section(b".note.nv.cuinfo", || OutSection {
                name: b".note.nv.cuinfo".to_vec(),
                sh_type: SHT_NOTE,
                flags,
                align: 4,
                entsize: 0,
                link: Link::Section(tk_id),
                info: Info::None,
                content: Content::Bytes(ci),
                group: Group::Notes,
                section_symbol: None,
            });
            self.section_symbol(ci_id);
        }
        Ok(())
    }
}

/// Appends one `.note.nv.tkinfo` record (owner "NVIDIA Corp", type 2000, as the tools write it).
fn push_tkinfo(out: &mut Vec<u8>, file: &str, tool: &str, version: &str, branch: &str, args: &str) {
    let mut pool = vec![0u8];
    let mut offs = [0u32; 5];
    if !file.is_empty() {
        offs[0] = 1;
        pool.extend_from_slice(file.as_bytes());
        pool.push(0);
    }
    for (k, s) in [tool, version, branch, args].iter().enumerate() {
        offs[k + 1] = pool.len() as u32;
        pool.extend_from_slice(s.as_bytes());
        pool.push(0);
    }
    let mut desc = Vec::new();
    desc.extend_from_slice(&2u32.to_le_bytes());
    for o in offs {
        desc.extend_from_slice(&o.to_le_bytes());
    }
    desc.extend_from_slice(&pool);
    while desc.len() % 4 != 0 {
        desc.push(0);
    }
    let owner = b"NVIDIA Corp\0";
    out.extend_from_slice(&(owner.len() as u32).to_le_bytes());
    out.extend_from_slice(&(desc.len() as u32).to_le_bytes());
    out.extend_from_slice(&2000u32.to_le_bytes());
    out.extend_from_slice(owner);
    out.extend_from_slice(&desc);
}
