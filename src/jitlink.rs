//! 1d. Final links of code nvlink's finalizer compiles again: sm_100+ code from a ptxas before
//! 13.4 (NVSHMEM's prebuilt device library is ptxas 13.0 code). nvlink 13.5 re-selects and
//! re-schedules such code in every mode, and no black-box rule predicts what it writes
//! (docs/research/capsule-numbering.md), so cubin-ld does not link it itself: a final link
//! holding it is handed whole, the inputs as they came, to the toolkit's nvJitLink through
//! its documented API. nvJitLink is nvlink's linker and finalizer: its output is nvlink's, its
//! own note aside (it names the "nvJIT API"). What nvJitLink has no documented option for
//! (`-r`, `-preserve-relocs`, cubin-ld's reports) is refused as before, naming the object.

use crate::arch::Arch;
use crate::cli::Args;
use crate::diag::{Early, Result};
use crate::input::{self, Kind, Loaded, MappedFile};
use crate::lto::nvjitlink::{self, InputKind, NvJitLink};
use crate::object::Refinalized;
use rayon::prelude::*;

/// The first of the user's inputs whose code nvlink's finalizer compiles again, in a link for
/// sm_100 or later.
pub fn refinalized_input(loaded: &Loaded<'_>, arch: &Arch) -> Option<Refinalized> {
    if !crate::arch::is_mercury_sm(arch.sm) {
        return None;
    }
    let found: Vec<Option<Refinalized>> = (loaded.units.par_iter())
        .filter(|u| !u.system)
        .map(|u| Refinalized::of(&u.name, &u.bytes))
        .collect();
    found.into_iter().flatten().next()
}

/// Links `files` through nvJitLink, as nvlink would link them (`cause` says why), and writes
/// the output; `system_used` says whether the system libraries' registrations go into the
/// `--register-link-binaries` file (as in cubin-ld's own links), asked only once the link
/// is known to be one nvJitLink can make.
pub fn link(
    args: &Args,
    arch: &Arch,
    files: &[MappedFile],
    loaded: &Loaded<'_>,
    system_used: impl FnOnce() -> Result<bool>,
    cause: &Refinalized,
    early: &mut Early,
) -> Result<()> {
    if let Some(option) = unsupported(args) {
        return Err(cause.refusal(&format!("which has no {option}")));
    }
    let inputs = inputs(files, cause)?;
    let system_used = system_used()?;
    // (Found as LTO finds it: beside -nvvmpath where nvcc passes it, beside ptxas.)
    let nvvmpath = args.nvvmpath.as_deref().map(std::path::Path::new);
    let near = nvvmpath.and_then(std::path::Path::parent);
    let ptxas = input::ptx::find_ptxas("linking it", near).ok();
    let why = format!(
        "'{}' (sm_100+ code from {}, which nvlink's finalizer compiles again)",
        cause.object, cause.ptxas
    );
    let lib = NvJitLink::load(&nvjitlink::candidates(nvvmpath, ptxas.as_deref()), &why)?;
    let (cubin, info) = lib.link_cubin(&options(args, arch), &inputs, "the link")?;
    early.infos.extend(info.lines().map(str::to_string));
    if let Some(path) = &args.register_link_binaries {
        let regs: Vec<_> = (loaded.registrations.iter())
            .filter(|r| system_used || !r.system)
            .cloned()
            .collect();
        crate::write::write_file(path, input::registration_file(&regs).as_bytes())?;
    }
    crate::write::write_file(&args.output.clone().unwrap_or_default(), &cubin)
}

/// The first option asked for that nvJitLink has no documented equivalent of.
fn unsupported(args: &Args) -> Option<&'static str> {
    let asked = [
        (args.relocatable, "-r (a relocatable link)"),
        (args.preserve_relocs, "-preserve-relocs"),
        (args.verbose, "-v (its resource report)"),
        (
            args.dump_callgraph || args.dump_callgraph_no_demangle,
            "-dump-callgraph",
        ),
        (args.print_gc_sections, "--print-gc-sections"),
        (!args.why_live.is_empty(), "--why-live"),
        (args.why_extract.is_some(), "--why-extract"),
        (args.wants_map(), "a link map"),
        (args.resource_usage.is_some(), "--resource-usage"),
        (args.ignore_host_info, "-ignore-host-info"),
        (args.keep_system_libraries, "-keep-system-libraries"),
        (args.suppress_debug_info, "-suppress-debug-info"),
        (
            args.device_stack_protector.is_some(),
            "-device-stack-protector",
        ),
        (
            args.dlto || args.lto,
            "-dlto beside objects not built for LTO",
        ),
        (args.time.is_some(), "-time"),
    ];
    asked.into_iter().find(|(on, _)| *on).map(|(_, name)| name)
}

/// nvJitLink's options for what nvlink was asked.
fn options(args: &Args, arch: &Arch) -> Vec<String> {
    let mut o = vec![format!("-arch={arch}")];
    if args.debug {
        o.push("-g".into());
    }
    o.extend(args.maxrregcount.map(|n| format!("-maxrregcount={n}")));
    o.extend(
        args.kernels_used
            .iter()
            .map(|k| format!("-kernels-used={k}")),
    );
    o.extend(
        args.variables_used
            .iter()
            .map(|v| format!("-variables-used={v}")),
    );
    o.extend(args.xptxas.iter().map(|x| format!("-Xptxas={x}")));
    o
}

/// The link's files as nvJitLink takes them, in command-line order (libraries last, as
/// `-l` found them); those nvlink skips are left out.
fn inputs<'f>(files: &'f [MappedFile], cause: &Refinalized) -> Result<Vec<InputKindOf<'f>>> {
    let mut out = Vec::new();
    for f in files {
        let kind = match input::kind_of(f, false)? {
            Kind::Cubin => InputKind::Cubin,
            Kind::Ptx => InputKind::Ptx,
            Kind::Fatbin => InputKind::Fatbin,
            Kind::HostObject => InputKind::Object,
            Kind::Archive => InputKind::Library,
            Kind::LtoIr => {
                return Err(cause.refusal(&format!(
                    "which takes LTO-IR ('{}') only under -dlto",
                    f.display_name()
                )))
            }
            Kind::Ignored | Kind::Skipped(_) => continue,
        };
        out.push((kind, f.path.to_str().unwrap_or("input"), f.bytes()));
    }
    Ok(out)
}

type InputKindOf<'f> = (InputKind, &'f str, &'f [u8]);

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &[&str]) -> Args {
        let raw: Vec<String> = words.iter().map(|w| w.to_string()).collect();
        crate::cli::parse(&raw).unwrap()
    }

    #[test]
    fn options_nvjitlink_lacks_are_named() {
        assert_eq!(
            unsupported(&args(&["-arch=sm_100", "-r", "a.o"])),
            Some("-r (a relocatable link)")
        );
        assert_eq!(
            unsupported(&args(&["-arch=sm_100", "-preserve-relocs", "a.o"])),
            Some("-preserve-relocs")
        );
        assert_eq!(unsupported(&args(&["-arch=sm_100", "-g", "a.o"])), None);
    }

    #[test]
    fn nvlinks_options_become_nvjitlinks() {
        let a = args(&[
            "-arch=sm_100",
            "-g",
            "-kernels-used=k",
            "-Xptxas",
            "-O1",
            "a.o",
        ]);
        let arch = crate::arch::Arch::parse("sm_100").unwrap();
        assert_eq!(
            options(&a, &arch),
            ["-arch=sm_100", "-g", "-kernels-used=k", "-Xptxas=-O1"]
        );
    }
}
