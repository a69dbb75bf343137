//! Static libraries. nvlink loads every host-object member of a GNU archive (whole-archive,
//! not on demand); cubin members are skipped, and so are BSD archives. It reads no member
//! after the first that is not an ELF file (PTX, a fatbin, text, an empty member).

use crate::diag::{Error, Result};
use object::read::archive::{ArchiveFile, ArchiveKind};
use std::borrow::Cow;
use std::path::Path;

pub const MAGIC: &[u8] = b"!<arch>\n";
pub const THIN_MAGIC: &[u8] = b"!<thin>\n";

pub fn has_magic(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC) || bytes.starts_with(THIN_MAGIC)
}

/// One member: its name and bytes (owned only for thin archives, whose members are files
/// of their own).
pub struct Member<'a> {
    pub name: String,
    pub bytes: Cow<'a, [u8]>,
}

/// What of an archive nvlink reads.
pub struct Members<'a> {
    /// In archive order.
    pub read: Vec<Member<'a>>,
    /// Why the reading stopped short, where it did: the member that is not an ELF file and
    /// the members after it, which are never linked (nvlink says nothing of them).
    pub unread: Option<String>,
}

/// The members of the archive at `path` that nvlink reads, in archive order. Thin archives
/// name their members relative to the archive's directory (as GNU ld resolves them).
pub fn members<'a>(path: &Path, display: &str, bytes: &'a [u8]) -> Result<Members<'a>> {
    let archive = ArchiveFile::parse(bytes)
        .map_err(|e| Error::new(format!("unexpected archive format in '{display}': {e}")))?;
    let mut out = Members {
        read: Vec::new(),
        unread: None,
    };
    if matches!(archive.kind(), ArchiveKind::Bsd | ArchiveKind::Bsd64) {
        return Ok(out);
    }
    let mut all = archive.members();
    while let Some(m) = all.next() {
        let m =
            m.map_err(|e| Error::new(format!("unexpected archive format in '{display}': {e}")))?;
        // A GNU archive member whose header says `#1/N` (a BSD long name): nvlink reads it
        // as GNU names it, `#1`, with all its data; the reader took N bytes of the data for
        // its name. Elsewhere (an archive without a GNU symbol table) it is BSD, skipped.
        let bsd_name = m
            .header()
            .filter(|h| h.name.starts_with(b"#1/") && h.name[3].is_ascii_digit());
        if bsd_name.is_some() && archive.kind() != ArchiveKind::Gnu {
            continue;
        }
        if let Some(h) = bsd_name {
            let (at, len) = m.file_range();
            let name_len: u64 = std::str::from_utf8(&h.name[3..])
                .ok()
                .and_then(|d| d.trim_end().parse().ok())
                .unwrap_or(0);
            let whole = usize::try_from(at.saturating_sub(name_len))
                .ok()
                .zip(usize::try_from(len.saturating_add(name_len)).ok())
                .and_then(|(a, l)| bytes.get(a..a.checked_add(l)?))
                .ok_or_else(|| {
                    Error::new(format!("'{display}:#1': member lies outside the archive"))
                })?;
            out.read.push(Member {
                name: "#1".into(),
                bytes: Cow::Borrowed(whole),
            });
            continue;
        }
        let raw = m.name();
        let name = String::from_utf8_lossy(raw).into_owned();
        let data = if m.is_thin() {
            let p = path.parent().unwrap_or(Path::new(".")).join(&name);
            Cow::Owned(std::fs::read(&p).map_err(|e| {
                Error::new(format!("Could not open input file '{}': {e}", p.display()))
            })?)
        } else {
            Cow::Borrowed(m.data(bytes).map_err(|e| {
                Error::new(format!(
                    "'{display}:{name}': member lies outside the archive: {e}"
                ))
            })?)
        };
        if !data.starts_with(ELF_MAGIC) {
            let rest: Vec<String> = all
                .filter_map(|m| Some(format!("'{}'", String::from_utf8_lossy(m.ok()?.name()))))
                .collect();
            if !rest.is_empty() {
                out.unread = Some(format!(
                    "archive '{display}': member '{name}' is not an ELF object; nvlink reads \
                     no member after it, so {} {} not linked",
                    rest.join(", "),
                    if rest.len() == 1 { "is" } else { "are" }
                ));
            }
            break;
        }
        out.read.push(Member { name, bytes: data });
    }
    Ok(out)
}

const ELF_MAGIC: &[u8] = b"\x7fELF";
