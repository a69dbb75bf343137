//! Host ELF objects from `nvcc -dc`: the device code sits in `__nv_relfatbin` (a fatbin),
//! the registration id in `__nv_module_id`, and the kernels host code refers to in the
//! `.nvHRK*` sections (NUL-separated glob patterns).

use crate::diag::{Error, Result};
use object::elf::{FileHeader64, SHT_NOBITS};
use object::read::elf::{FileHeader, SectionHeader};
use object::LittleEndian;

/// What a host object contributes to a device link.
#[derive(Debug, Default)]
pub struct HostObject<'a> {
    /// The `__nv_relfatbin` bytes; None for objects without separately compiled device code.
    pub relfatbin: Option<&'a [u8]>,
    /// The strings of `__nv_module_id` (one per object `ld -r` merged), empty ones dropped.
    pub module_ids: Vec<String>,
    /// Glob patterns of the kernels host code launches (`.nvHRKI`, `.nvHRKE`).
    pub kernel_refs: Vec<&'a [u8]>,
    /// Names of the device variables host code uses (`.nvHRDE`, `.nvHRDI`, `.nvHRCE`,
    /// `.nvHRCI`): what LTO may not internalize.
    pub variable_refs: Vec<&'a [u8]>,
    /// Whether the object carries host-reference sections (`.nvHR*`) at all.
    pub has_host_info: bool,
}

pub const EM_CUDA: u16 = 190;

/// ELF class and machine, when `bytes` is an ELF file.
pub fn elf_machine(bytes: &[u8]) -> Option<(u8, u16)> {
    if bytes.len() < 20 || &bytes[..4] != b"\x7fELF" {
        return None;
    }
    Some((bytes[4], u16::from_le_bytes([bytes[18], bytes[19]])))
}

/// Reads the device-link sections of a host object. `name` is used in messages.
pub fn parse<'a>(name: &str, bytes: &'a [u8]) -> Result<HostObject<'a>> {
    let not_found = || Error::new(format!("Could not find fatbin in '{name}'"));
    if bytes.get(4) != Some(&2) {
        return Err(not_found());
    }
    let damaged = |e: object::read::Error| Error::new(format!("'{name}': damaged host ELF: {e}"));
    let header = FileHeader64::<LittleEndian>::parse(bytes).map_err(damaged)?;
    let endian = header.endian().map_err(damaged)?;
    let sections = header.sections(endian, bytes).map_err(damaged)?;
    // (Every object has at least its section-name table: none at all is a damaged count,
    // which nvlink reports as a missing fatbin.)
    if sections.is_empty() {
        return Err(not_found());
    }
    let mut host = HostObject::default();
    let mut segment = false;
    let mut whole_program = false;
    for s in sections.iter() {
        let sname = sections.section_name(endian, s).map_err(|_| {
            Error::new(format!(
                "'{name}': damaged host ELF: a section's name offset ({:#x}) is outside the \
                 section-name table",
                s.sh_name(endian)
            ))
        })?;
        let data = || -> Result<&'a [u8]> {
            if s.sh_type(endian) == SHT_NOBITS {
                return Ok(&[]);
            }
            s.data(endian, bytes).map_err(|_| {
                Error::new(format!(
                    "'{name}': section {} lies outside the file",
                    String::from_utf8_lossy(sname)
                ))
            })
        };
        match sname {
            b"__nv_relfatbin" => host.relfatbin = Some(data()?),
            b"__nv_module_id" => {
                host.module_ids = data()?
                    .split(|&c| c == 0)
                    .filter(|s| !s.is_empty())
                    .map(|s| String::from_utf8_lossy(s).into_owned())
                    .collect()
            }
            b".nvHRKI" | b".nvHRKE" => {
                host.has_host_info = true;
                host.kernel_refs
                    .extend(data()?.split(|&c| c == 0).filter(|s| !s.is_empty()))
            }
            b".nvHRDE" | b".nvHRDI" | b".nvHRCE" | b".nvHRCI" => {
                host.has_host_info = true;
                host.variable_refs
                    .extend(data()?.split(|&c| c == 0).filter(|s| !s.is_empty()))
            }
            _ if sname.starts_with(b".nvHR") => host.has_host_info = true,
            b".nvFatBinSegment" => segment = true,
            b".nv_fatbin" => whole_program = true,
            _ => {}
        }
    }
    // A fatbin wrapper without the fatbin it wraps is a broken object, not a plain one.
    if segment && host.relfatbin.is_none() && !whole_program {
        return Err(not_found());
    }
    Ok(host)
}

/// `*`-glob match, as the host-reference patterns use it.
pub fn glob_match(pattern: &[u8], name: &[u8]) -> bool {
    let (mut p, mut n) = (0, 0);
    let (mut star, mut mark) = (None, 0);
    while n < name.len() {
        if p < pattern.len() && pattern[p] == b'*' {
            star = Some(p);
            mark = n;
            p += 1;
        } else if p < pattern.len() && pattern[p] == name[n] {
            p += 1;
            n += 1;
        } else if let Some(s) = star {
            p = s + 1;
            mark += 1;
            n = mark;
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|&c| c == b'*')
}

#[cfg(test)]
mod tests {
    use super::glob_match;

    #[test]
    fn host_reference_patterns_match_template_instances_and_static_prefixes() {
        assert!(glob_match(b"_Z5tkern*", b"_Z5tkernIfEvPT_"));
        assert!(glob_match(
            b"__nv_static_25__x_*11static_kern*",
            b"__nv_static_25__x__Z11static_kernPi"
        ));
        assert!(!glob_match(b"_Z5tkern*", b"_Z9used_kernPi"));
        assert!(glob_match(b"dvar", b"dvar"));
        assert!(!glob_match(b"dvar", b"dvar2"));
    }
}
