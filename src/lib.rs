//! cubin-ld: an offline device linker for NVIDIA GPU cubins.
//!
//! The pipeline, one module per pass (most are still to come; see the issues):
//! `input` (map files) → `elf::read` (validated zero-copy views, in parallel) → resolve →
//! merge → reloc → layout → write. `dump` and `compare` are the inspector behind
//! `cubin-dump` and the differential tests.

pub mod arch;
pub mod cli;
pub mod compare;
pub mod diag;
pub mod dump;
pub mod elf;
pub mod input;
pub mod reloc;

use diag::{Error, Result};

/// What a finished link reports back to the driver program.
#[derive(Debug, Default)]
pub struct LinkOutcome {
    pub warnings: Vec<String>,
}

/// Runs a link. Until the executable link lands, every input is still opened and validated
/// (so that bad input gets its clear error), and then the link is refused with a message
/// that says so; no output file is written.
pub fn link(args: &cli::Args) -> Result<LinkOutcome> {
    if let Some(u) = args.unsupported.first() {
        return Err(Error::new(u.clone()));
    }
    let arch_name = args
        .arch
        .as_deref()
        .ok_or_else(|| Error::new("Unknown arch name '(null)'"))?;
    let arch = arch::Arch::parse(arch_name)?;
    if args.inputs.is_empty() {
        return Err(Error::new("no input files"));
    }
    use rayon::prelude::*;
    let files: Vec<Result<input::files::MappedFile>> = args
        .inputs
        .par_iter()
        .map(|p| input::files::MappedFile::open(p))
        .collect();
    let files: Vec<input::files::MappedFile> = files.into_iter().collect::<Result<_>>()?;
    let parsed: Vec<Result<()>> = files
        .par_iter()
        .map(|f| {
            elf::Cubin::parse(f.bytes())
                .map(|_| ())
                .map_err(|e| e.context(format!("'{}'", f.display_name())))
        })
        .collect();
    parsed.into_iter().collect::<Result<Vec<()>>>()?;
    Err(Error::new(format!(
        "linking for {arch} is not implemented yet in this version of cubin-ld (inputs are valid)"
    )))
}
