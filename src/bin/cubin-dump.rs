//! `cubin-dump`: prints a cubin in cubin-ld's canonical, index-free text form (each cubin of a
//! host object's or a fatbin's device code, named by its entry), or compares two cubins (or
//! saved dumps, or files holding one cubin) semantically and exits 1 when they differ.

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
    /// With --compare: mask the per-build hash and process id in internal-linkage names (and
    /// segment sizes, which the names' lengths move)
    #[arg(long)]
    normalize_internal: bool,
    /// With --compare: leave out the linker's own .note.nv.tkinfo record (nvlink or cubin-ld)
    #[arg(long)]
    ignore_linker_note: bool,
    /// With --compare: leave out the scheduling control bits of code (scoreboards, stalls,
    /// wait masks, reuse flags)
    #[arg(long)]
    ignore_scoreboards: bool,
    /// Files to print: cubins, host objects (`nvcc -dc`) and fatbins (each device-code entry)
    /// or saved dumps (with --compare, the two files to compare)
    files: Vec<PathBuf>,
}

/// A file's dumps: saved dumps are read as they are, cubins parsed; host objects (`nvcc -dc`)
/// and fatbins give one dump per device-code entry of their fatbin, each named by its entry
/// (`sm_90`), PTX and LTO-IR entries named as not dumped.
fn dumps_of(path: &Path) -> Result<Vec<(Option<String>, String)>> {
    use cubin_ld::input::{fatbin, host};
    let f = MappedFile::open(path)?;
    let bytes = f.bytes();
    if bytes.starts_with(cubin_ld::dump::DUMP_VERSION_LINE.as_bytes()) {
        return Ok(vec![(None, String::from_utf8_lossy(bytes).into_owned())]);
    }
    let name = path.display().to_string();
    let fatbin_bytes = match host::elf_machine(bytes) {
        Some((_, m)) if m != host::EM_CUDA => host::parse(&name, bytes)?
            .relfatbin
            .ok_or_else(|| cubin_ld::diag::Error::new(format!("'{name}': no device code")))?,
        _ if fatbin::has_magic(bytes) => bytes,
        _ => return Ok(vec![(None, dump_cubin(bytes, &name)?)]),
    };
    let entries = fatbin::first_container(fatbin_bytes).with_context(|| name.clone())?;
    let budget = fatbin::Budget::of_this_machine();
    let mut out = Vec::new();
    for e in &entries {
        let label = e.describe();
        let text = if e.kind == fatbin::KIND_ELF {
            let payload = fatbin::payload(e, &budget).with_context(|| name.clone())?;
            dump_cubin(&payload, &format!("{name} ({label})"))?
        } else {
            "(not a cubin: not dumped)\n".to_string()
        };
        out.push((Some(label), text));
    }
    Ok(out)
}

/// A cubin's dump, what it holds that has no name reported on stderr.
fn dump_cubin(bytes: &[u8], name: &str) -> Result<String> {
    let d = cubin_ld::dump::dump_bytes(bytes).with_context(|| name.to_string())?;
    for u in &d.unknowns.0 {
        eprintln!("cubin-dump: {name}: no name known for {u}");
    }
    Ok(d.text)
}

/// The one cubin a file holds, for --compare (a host object or fatbin with one cubin entry).
fn dump_of(path: &Path) -> Result<String> {
    let mut cubins: Vec<(Option<String>, String)> = dumps_of(path)?
        .into_iter()
        .filter(|(_, t)| !t.starts_with("(not a cubin"))
        .collect();
    if cubins.len() != 1 {
        return Err(cubin_ld::diag::Error::new(format!(
            "'{}': holds {} cubins ({}); --compare takes files of one",
            path.display(),
            cubins.len(),
            cubins
                .iter()
                .filter_map(|(l, _)| l.clone())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    Ok(cubins.remove(0).1)
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
        match dumps_of(f) {
            Ok(dumps) => {
                let mut out = std::io::stdout().lock();
                for (entry, t) in dumps {
                    let header = match entry {
                        Some(e) => format!("== {} [{e}]\n", f.display()),
                        None if o.files.len() > 1 => format!("== {}\n", f.display()),
                        None => String::new(),
                    };
                    if out
                        .write_all(header.as_bytes())
                        .and_then(|_| out.write_all(t.as_bytes()))
                        .is_err()
                    {
                        return rc;
                    }
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
