//! ELF notes, and the two NVIDIA ones: `.note.nv.tkinfo` (one record per tool that touched
//! the module) and `.note.nv.cuinfo` (virtual SM and toolkit version).

use crate::diag::{Error, Result};

pub const NT_CUDA_CUINFO: u32 = 1000;
pub const NT_CUDA_TKINFO: u32 = 2000;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note<'data> {
    pub name: &'data [u8],
    pub n_type: u32,
    pub desc: &'data [u8],
}

fn align4(n: usize) -> Option<usize> {
    n.checked_add(3).map(|x| x & !3)
}

fn u32_at(b: &[u8], off: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(off..off + 4)?.try_into().ok()?))
}

pub fn parse_notes(bytes: &[u8]) -> Result<Vec<Note<'_>>> {
    let mut out = Vec::new();
    let mut i = 0usize;
    while i < bytes.len() {
        let bad = || Error::new(format!("note at {i:#x} runs past the end of the section"));
        let namesz = u32_at(bytes, i).ok_or_else(bad)? as usize;
        let descsz = u32_at(bytes, i + 4).ok_or_else(bad)? as usize;
        let n_type = u32_at(bytes, i + 8).ok_or_else(bad)?;
        let name_start = i + 12;
        let name = bytes
            .get(name_start..name_start.checked_add(namesz).ok_or_else(bad)?)
            .ok_or_else(bad)?;
        let desc_start = name_start + align4(namesz).ok_or_else(bad)?;
        let desc = bytes
            .get(desc_start..desc_start.checked_add(descsz).ok_or_else(bad)?)
            .ok_or_else(bad)?;
        out.push(Note {
            name: trim_nul(name),
            n_type,
            desc,
        });
        i = desc_start + align4(descsz).ok_or_else(bad)?;
    }
    Ok(out)
}

fn trim_nul(b: &[u8]) -> &[u8] {
    match b.iter().position(|&c| c == 0) {
        Some(p) => &b[..p],
        None => b,
    }
}

/// A `.note.nv.tkinfo` record: a format version and five strings (the first is empty in every
/// file seen; then tool name, tool version, build branch, command-line arguments).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolInfo<'data> {
    pub version: u32,
    pub strings: [&'data [u8]; 5],
}

pub fn parse_tkinfo(desc: &[u8]) -> Result<ToolInfo<'_>> {
    let bad = || Error::new("tool-information note is shorter than its header");
    let version = u32_at(desc, 0).ok_or_else(bad)?;
    let pool = desc.get(24..).ok_or_else(bad)?;
    let mut strings: [&[u8]; 5] = [&[]; 5];
    for (k, s) in strings.iter_mut().enumerate() {
        let off = u32_at(desc, 4 + 4 * k).ok_or_else(bad)? as usize;
        let rest = pool.get(off..).ok_or_else(|| {
            Error::new(format!(
                "tool-information string offset {off:#x} is outside the note"
            ))
        })?;
        *s = trim_nul(rest);
    }
    Ok(ToolInfo { version, strings })
}

/// The toolkit whose nvlink cubin-ld reproduces (13.5), as `.note.nv.cuinfo` numbers it: an
/// output's note says it whatever its inputs say; an input newer than it is refused.
pub const CUINFO_TOOLKIT_VERSION: u16 = 0x87;
/// The oldest toolkit whose objects nvlink 13.5 links (12.0).
pub const CUINFO_OLDEST_TOOLKIT: u16 = 0x78;

/// Where a `.note.nv.cuinfo` section's toolkit version lies (the section's first note).
pub fn cuinfo_toolkit_offset(section: &[u8]) -> Option<usize> {
    let first = parse_notes(section).ok()?.into_iter().next()?;
    // Version 1 (CUDA 12's `.note.nv.cuver`: u16 version, u16 virtual SM, two u32 of 1) holds
    // no toolkit version, and nvlink links such objects.
    let v2 = parse_cuinfo(first.desc).is_ok_and(|c| c.version == 2);
    (first.n_type == NT_CUDA_CUINFO && v2)
        .then(|| first.desc.as_ptr() as usize - section.as_ptr() as usize + 4)
}

/// A `.note.nv.cuinfo` record: `u16 version, u16 virtual SM, u16 toolkit version (0x87 = 13.5)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CuInfo {
    pub version: u16,
    pub virtual_sm: u16,
    pub toolkit: u16,
    pub reserved: u16,
}

pub fn parse_cuinfo(desc: &[u8]) -> Result<CuInfo> {
    if desc.len() < 8 {
        return Err(Error::new(format!(
            "CUDA information note has {} bytes, expected 8",
            desc.len()
        )));
    }
    let h = |o: usize| u16::from_le_bytes([desc[o], desc[o + 1]]);
    Ok(CuInfo {
        version: h(0),
        virtual_sm: h(2),
        toolkit: h(4),
        reserved: h(6),
    })
}
