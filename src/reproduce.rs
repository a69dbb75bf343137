//! `--reproduce=FILE.tar`: everything a link read and the command line that linked it, in one
//! tar, to attach to a bug report. Unpacked, `cd repro && cubin-ld @response.txt` links the
//! same bytes: every input is stored under `repro/files/<n>/<its name>` and the response file
//! names it there; a `-l` library is stored in its `-L` folder where that is a relative path
//! inside the archive's folder (the output's toolkit note records `-L` as typed, so it stays
//! as typed), else under `repro/lib/<n>/` with its `-L` rewritten (the note then differs);
//! files the link writes are named by their base names, in `repro/`.

use crate::cli::{Args, Word};
use crate::diag::{Error, Result};
use crate::input::MappedFile;
use std::path::{Path, PathBuf};

/// Writes the archive for a link of `files` (the inputs, then the libraries `-l` found).
pub fn write(tar: &Path, args: &Args, files: &[MappedFile]) -> Result<()> {
    let failed = |e: &dyn std::fmt::Display| {
        Error::new(format!(
            "--reproduce: cannot write '{}': {e}",
            tar.display()
        ))
    };
    let base = |p: &Path| {
        p.file_name()
            .map_or_else(|| "input".into(), |b| b.to_string_lossy().into_owned())
    };
    // Inputs under files/<n>/; a library under the -L folder it was found in, kept as typed
    // where that is a plain relative path (the output's toolkit note records -L as typed),
    // else under lib/<n>/, and the -L rewritten to it.
    let mut stored: Vec<(PathBuf, String)> = Vec::new();
    let mut folders: Vec<(PathBuf, String)> = Vec::new();
    for (n, f) in files.iter().enumerate() {
        let name = if args.inputs.contains(&f.path) {
            format!("files/{n}/{}", base(&f.path))
        } else {
            let found_in = f.path.parent().unwrap_or(Path::new(""));
            let folder = match folders.iter().find(|(d, _)| d == found_in) {
                Some((_, stored_as)) => stored_as.clone(),
                None => {
                    let stored_as = plain_relative(found_in)
                        .unwrap_or_else(|| format!("lib/{}", folders.len()));
                    folders.push((found_in.to_path_buf(), stored_as.clone()));
                    stored_as
                }
            };
            match folder.as_str() {
                "" => base(&f.path),
                d => format!("{d}/{}", base(&f.path)),
            }
        };
        stored.push((f.path.clone(), name));
    }
    let named = |p: &Path| stored.iter().find(|(s, _)| s == p).map(|(_, n)| n.clone());
    let folder_of = |d: &str| {
        folders.iter().find(|(f, _)| f == Path::new(d)).map_or_else(
            || d.to_string(),
            |(_, s)| {
                if s.is_empty() {
                    d.to_string()
                } else {
                    s.clone()
                }
            },
        )
    };
    let mut words: Vec<String> = Vec::new();
    for w in &args.words {
        match w {
            // (An input nothing was read from stays as typed.)
            Word::Input(p) => words.push(named(p).unwrap_or_else(|| p.display().to_string())),
            Word::Option("reproduce" | "time-trace", _) => {}
            Word::Option("library-path", Some(v)) => {
                let dirs: Vec<String> = v.split(',').map(folder_of).collect();
                words.push(format!("--library-path={}", dirs.join(",")));
            }
            Word::Option(long @ ("output-file" | "register-link-binaries" | "time"), Some(v))
                if v != "-" =>
            {
                words.push(format!("--{long}={}", base(Path::new(v))))
            }
            Word::Option(long, None) => words.push(format!("--{long}")),
            Word::Option(long, Some(v)) => words.push(format!("--{long}={v}")),
        }
    }
    let response: String = words
        .iter()
        .map(|w| format!("\"{}\"\n", w.replace('\\', "\\\\").replace('"', "\\\"")))
        .collect();
    let version = format!("cubin-ld {}\n", env!("CARGO_PKG_VERSION"));
    let mut all: Vec<(String, &[u8])> = vec![
        ("response.txt".into(), response.as_bytes()),
        ("version.txt".into(), version.as_bytes()),
    ];
    all.extend(
        stored
            .iter()
            .zip(files)
            .map(|((_, n), f)| (n.clone(), f.bytes())),
    );
    let mut out = Vec::new();
    for (name, bytes) in &all {
        tar_entry(&mut out, &format!("repro/{name}"), bytes).map_err(|e| failed(&e))?;
    }
    // (Two zero blocks end the archive.)
    out.resize(out.len() + 1024, 0);
    crate::write::write_file(tar, &out).map_err(|e| failed(&e))
}

/// `dir` as a path inside the archive's folder, where it is relative and stays inside it
/// ("." is the folder itself: "").
fn plain_relative(dir: &Path) -> Option<String> {
    use std::path::Component;
    let mut parts = Vec::new();
    for c in dir.components() {
        match c {
            Component::Normal(p) => parts.push(p.to_str()?),
            Component::CurDir => {}
            _ => return None,
        }
    }
    Some(parts.join("/"))
}

/// One ustar entry: a header block, then the bytes, padded to 512.
fn tar_entry(out: &mut Vec<u8>, path: &str, bytes: &[u8]) -> std::result::Result<(), String> {
    let mut h = [0u8; 512];
    // A path that does not fit the name field is split into prefix and name at a '/'.
    let (prefix, name) = if path.len() <= 100 {
        ("", path)
    } else {
        let cut = path[..path.len().min(156)]
            .rfind('/')
            .filter(|&c| path.len() - c - 1 <= 100)
            .ok_or_else(|| format!("the name '{path}' is too long for a tar archive"))?;
        (&path[..cut], &path[cut + 1..])
    };
    let put = |h: &mut [u8; 512], at: usize, s: &[u8]| h[at..at + s.len()].copy_from_slice(s);
    put(&mut h, 0, name.as_bytes());
    put(&mut h, 100, b"0000644\0");
    put(&mut h, 108, b"0000000\0");
    put(&mut h, 116, b"0000000\0");
    put(&mut h, 124, format!("{:011o}\0", bytes.len()).as_bytes());
    put(&mut h, 136, b"00000000000\0");
    put(&mut h, 148, b"        ");
    h[156] = b'0';
    put(&mut h, 257, b"ustar\0");
    put(&mut h, 263, b"00");
    put(&mut h, 345, prefix.as_bytes());
    let sum: u32 = h.iter().map(|&b| b as u32).sum();
    put(&mut h, 148, format!("{sum:06o}\0 ").as_bytes());
    out.extend_from_slice(&h);
    out.extend_from_slice(bytes);
    out.resize(out.len().next_multiple_of(512), 0);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tar_entry_is_a_checksummed_header_and_padded_bytes() {
        let mut out = Vec::new();
        tar_entry(&mut out, "repro/a.o", b"abc").unwrap();
        assert_eq!(out.len(), 1024);
        assert_eq!(&out[..9], b"repro/a.o");
        assert_eq!(&out[124..136], b"00000000003\0");
        assert_eq!(&out[257..263], b"ustar\0");
        let mut h = out[..512].to_vec();
        h[148..156].copy_from_slice(b"        ");
        let sum: u32 = h.iter().map(|&b| b as u32).sum();
        assert_eq!(&out[148..155], format!("{sum:06o}\0").as_bytes());
        assert_eq!(&out[512..515], b"abc");
    }

    #[test]
    fn only_relative_folders_inside_the_archive_are_kept_as_typed() {
        assert_eq!(plain_relative(Path::new(".")).as_deref(), Some(""));
        assert_eq!(
            plain_relative(Path::new("./lib/x")).as_deref(),
            Some("lib/x")
        );
        assert_eq!(plain_relative(Path::new("../lib")), None);
        assert_eq!(plain_relative(Path::new("/usr/lib")), None);
    }

    #[test]
    fn a_long_path_goes_into_the_prefix_field() {
        let dir = "d".repeat(120);
        let mut out = Vec::new();
        tar_entry(&mut out, &format!("{dir}/x.o"), b"").unwrap();
        assert_eq!(&out[..4], b"x.o\0");
        assert_eq!(&out[345..465], dir.as_bytes());
    }
}
