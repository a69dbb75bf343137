//! `cubin-dump`: prints a cubin in cubin-ld's canonical, index-free text form, or compares two
//! cubins (or saved dumps) semantically and exits 1 when they differ.

use clap::Parser;
use cubin_ld::compare::{compare_dumps, CompareOptions};
use cubin_ld::diag::{Context, Result};
use cubin_ld::input::files::MappedFile;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "cubin-dump",
    version,
    about = "Print or compare cubins by meaning, not by index"
)]
struct Opts {
    /// Compare the two FILES (cubins or saved dumps) and report every semantic difference;
    /// exit 1 when they differ
    #[arg(long)]
    compare: bool,
    /// With --compare: ignore the order of sections, symbols and entries
    #[arg(long)]
    ignore_order: bool,
    /// With --compare: leave out a section (exact name, or a prefix ending in '*'); repeatable
    #[arg(long = "ignore-section", value_name = "NAME")]
    ignore_sections: Vec<String>,
    /// With --compare: mask the per-build hash in internal-linkage names
    #[arg(long)]
    normalize_internal: bool,
    /// With --compare: leave out the linker's own .note.nv.tkinfo record (nvlink or cubin-ld)
    #[arg(long)]
    ignore_linker_note: bool,
    /// With --compare: leave out the scheduling control bits of code (scoreboards, stalls,
    /// wait masks, reuse flags)
    #[arg(long)]
    ignore_scoreboards: bool,
    /// Files to print (or, with --compare, the two files to compare)
    files: Vec<PathBuf>,
}

/// A file's dump: saved dumps are read as they are, anything else is parsed as a cubin.
fn dump_of(path: &Path) -> Result<String> {
    let f = MappedFile::open(path)?;
    let bytes = f.bytes();
    if bytes.starts_with(cubin_ld::dump::DUMP_VERSION_LINE.as_bytes()) {
        return Ok(String::from_utf8_lossy(bytes).into_owned());
    }
    let d = cubin_ld::dump::dump_bytes(bytes).with_context(|| path.display().to_string())?;
    for u in &d.unknowns.0 {
        eprintln!("cubin-dump: {}: no name known for {u}", path.display());
    }
    Ok(d.text)
}

fn main() -> ExitCode {
    // (A closed pipe, `cubin-dump x | head`, ends it by SIGPIPE, not a panic.)
    // SAFETY: restores the default action of one signal, before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let o = Opts::parse();
    if o.compare {
        let pair = &o.files;
        if pair.len() != 2 {
            eprintln!(
                "cubin-dump: --compare takes exactly two files, got {}",
                pair.len()
            );
            return ExitCode::from(2);
        }
        let (a, b) = match (dump_of(&pair[0]), dump_of(&pair[1])) {
            (Ok(a), Ok(b)) => (a, b),
            (Err(e), _) | (_, Err(e)) => {
                eprintln!("cubin-dump: {e}");
                return ExitCode::from(2);
            }
        };
        let opts = CompareOptions {
            ignore_order: o.ignore_order,
            ignore_sections: o.ignore_sections.clone(),
            normalize_internal: o.normalize_internal,
            ignore_linker_note: o.ignore_linker_note,
            ignore_scoreboards: o.ignore_scoreboards,
        };
        let diffs = compare_dumps(&a, &b, &opts);
        if diffs.is_empty() {
            return ExitCode::SUCCESS;
        }
        let mut text: String = diffs.iter().map(|d| format!("{d}\n")).collect();
        text.push_str(&format!(
            "{} difference(s) between {} and {}\n",
            diffs.len(),
            pair[0].display(),
            pair[1].display()
        ));
        print_quietly(&text);
        return ExitCode::from(1);
    }
    if o.files.is_empty() {
        eprintln!("cubin-dump: no input files (see --help)");
        return ExitCode::from(2);
    }
    let mut rc = ExitCode::SUCCESS;
    for f in &o.files {
        match dump_of(f) {
            Ok(t) => {
                let mut out = std::io::stdout().lock();
                let header = if o.files.len() > 1 {
                    format!("== {}\n", f.display())
                } else {
                    String::new()
                };
                if out
                    .write_all(header.as_bytes())
                    .and_then(|_| out.write_all(t.as_bytes()))
                    .is_err()
                {
                    return rc;
                }
            }
            Err(e) => {
                eprintln!("cubin-dump: {e}");
                rc = ExitCode::from(2);
            }
        }
    }
    rc
}

/// Writes to stdout, stopping quietly when the reader has gone (`| head`).
fn print_quietly(text: &str) {
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
}
