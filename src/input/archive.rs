//! Static libraries. nvlink loads every host-object member of a GNU archive (whole-archive,
//! not on demand); members that are cubins, PTX or fatbins are skipped, and so are BSD
//! archives.

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

/// The members of the archive at `path`, in archive order. Thin archives name their
/// members relative to the archive's directory (as GNU ld resolves them).
pub fn members<'a>(path: &Path, display: &str, bytes: &'a [u8]) -> Result<Vec<Member<'a>>> {
    let archive = ArchiveFile::parse(bytes)
        .map_err(|e| Error::new(format!("unexpected archive format in '{display}': {e}")))?;
    if matches!(archive.kind(), ArchiveKind::Bsd | ArchiveKind::Bsd64) {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for m in archive.members() {
        let m =
            m.map_err(|e| Error::new(format!("unexpected archive format in '{display}': {e}")))?;
        let raw = m.name();
        // BSD long names (`#1/N`) in an archive without a symbol table: not GNU either.
        if raw.starts_with(b"#1/") {
            continue;
        }
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
        out.push(Member { name, bytes: data });
    }
    Ok(out)
}
