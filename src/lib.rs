//! cubin-ld: an offline device linker for NVIDIA GPU cubins.
//!
//! The pipeline, one module per pass:
//! `input` (map files; host objects, archives and fatbins down to device cubins) →
//! `elf::read` (validated zero-copy views, in parallel) → resolve → merge → reloc → layout →
//! write. `dump` and `compare` are the inspector behind
//! `cubin-dump` and the differential tests.

pub mod arch;
pub mod cli;
pub mod compare;
pub mod demangle;
pub mod diag;
pub mod dump;
pub mod elf;
pub mod graph;
pub mod host_script;
pub mod input;
pub mod layout;
pub mod liveness;
pub mod merge;
pub mod object;
pub mod output;
pub mod reloc;
pub mod resolve;
pub mod timing;
pub mod write;

use diag::{Error, Result};
use rayon::prelude::*;

/// What a finished link reports back to the driver program.
#[derive(Debug, Default)]
pub struct LinkOutcome {
    pub warnings: Vec<String>,
    /// `info` lines (`-v`).
    pub infos: Vec<String>,
    /// `--dump-callgraph` lines.
    pub callgraph: Vec<String>,
    /// What loading the inputs said, printed before anything else.
    pub load_messages: Vec<LoadMessage>,
    /// What goes to standard output (`-ghls` without `-o`, `-time -`).
    pub stdout: String,
}

/// A message from loading the inputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadMessage {
    /// What a tool cubin-ld ran said (ptxas's warnings), printed as it is.
    Tool(String),
    /// An `info` line about an input.
    Info(String),
}

/// Why a link failed, in the shape nvlink reports it: error lines, then possibly one fatal
/// line, and an exit status (1 for fatal errors, 255 for link errors).
#[derive(Debug, Default)]
pub struct Failure {
    pub warnings: Vec<String>,
    pub errors: Vec<String>,
    pub fatal: Option<String>,
    pub code: u8,
    /// What loading the inputs said, printed before anything else.
    pub load_messages: Vec<LoadMessage>,
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Failure {
            fatal: Some(e.to_string()),
            code: 1,
            ..Default::default()
        }
    }
}

/// Runs a link: load and parse the inputs in parallel, resolve, merge, lay out, write.
/// Nothing is written unless every pass succeeded.
pub fn link(args: &cli::Args) -> std::result::Result<LinkOutcome, Failure> {
    let mut early = Early::default();
    // What loading reported comes first, whatever happens later.
    match link_inner(args, &mut early) {
        Ok(o) => Ok(LinkOutcome {
            load_messages: early.messages(),
            warnings: [early.warnings, o.warnings].concat(),
            stdout: early.stdout + &o.stdout,
            ..o
        }),
        Err(f) => Err(Failure {
            load_messages: early.messages(),
            warnings: [early.warnings, f.warnings].concat(),
            ..f
        }),
    }
}

/// Messages about the inputs, found while loading them.
#[derive(Default)]
struct Early {
    tool_messages: Vec<String>,
    infos: Vec<String>,
    warnings: Vec<String>,
    stdout: String,
}

impl Early {
    /// Tools' messages first, then the infos, as nvlink prints them.
    fn messages(&mut self) -> Vec<LoadMessage> {
        let tools = std::mem::take(&mut self.tool_messages).into_iter();
        let infos = std::mem::take(&mut self.infos).into_iter();
        tools
            .map(LoadMessage::Tool)
            .chain(infos.map(LoadMessage::Info))
            .collect()
    }
}

fn link_inner(args: &cli::Args, early: &mut Early) -> std::result::Result<LinkOutcome, Failure> {
    // -ghls writes a host linker script and links nothing.
    if let Some(kind) = &args.ghls {
        let script = host_script::generate(kind, args)?;
        return Ok(LinkOutcome {
            stdout: script,
            ..Default::default()
        });
    }
    let arch = cli::check(args)?;
    if let Some(u) = args.unsupported.first() {
        return Err(Error::new(u.clone()).into());
    }
    if args.use_host_info && !(args.kernels_used.is_empty() && args.variables_used.is_empty()) {
        early.infos.push(
            "ignore -use-host-info because -kernels-used or -variables-used is specified".into(),
        );
    }
    // nvlink marks -preserve-relocs as unfinished from sm_90 on. (-disable-infos silences
    // warnings, not infos, in nvlink; -w silences nothing.)
    let option_warnings: Vec<String> =
        (args.preserve_relocs && arch.sm >= 90 && !args.disable_infos)
            .then(|| {
                format!(
                    "Option '--preserve-relocs' is not fully implemented for gpu archtecture \
                 '{arch}' and may not work as expected"
                )
            })
            .into_iter()
            .collect();
    if !args.warning_as_error {
        early.warnings.extend(option_warnings.iter().cloned());
    }
    if let Some(t) = &args.time {
        early.stdout.push_str(&timing::start(t)?);
    }
    let load = tracing::info_span!("load").entered();
    let ptxas_options = args.ptxas_options();
    let in_opts = input::Options {
        arch: &arch,
        library_paths: &args.library_paths,
        libraries: &args.libraries,
        register: args.register_link_binaries.is_some(),
        ptxas_options: &ptxas_options,
    };
    let files = input::map_files(&input::input_paths(&args.inputs, &in_opts))?;
    let loaded = input::load(&files, &in_opts)?;
    early
        .tool_messages
        .extend(loaded.tool_messages.iter().cloned());
    early.infos.extend(loaded.infos.iter().cloned());
    early.warnings.extend(loaded.warnings.iter().cloned());
    // System libraries come last; they are decompressed only when something is left
    // undefined that they might define.
    let n_user = loaded.units.iter().take_while(|u| !u.system).count();
    let objects: Vec<Result<object::InputObject<'_>>> = loaded.units[..n_user]
        .par_iter()
        .enumerate()
        .map(|(i, u)| object::InputObject::new(i as u32, u.name.clone(), &u.bytes))
        .collect();
    let mut objects: Vec<object::InputObject<'_>> = objects.into_iter().collect::<Result<_>>()?;
    let system_units = &loaded.units[n_user..];
    let system_bytes_needed = !system_units.is_empty()
        && (args.keep_system_libraries || resolve::leaves_undefined(&objects));
    let system_bytes: Vec<std::borrow::Cow<'_, [u8]>> = if system_bytes_needed {
        let v: Vec<Result<std::borrow::Cow<'_, [u8]>>> =
            system_units.par_iter().map(|u| u.materialize()).collect();
        v.into_iter().collect::<Result<_>>()?
    } else {
        Vec::new()
    };
    let more: Vec<Result<object::InputObject<'_>>> = system_units
        .par_iter()
        .zip(system_bytes.par_iter())
        .enumerate()
        .map(|(i, (u, b))| object::InputObject::new((n_user + i) as u32, u.name.clone(), b))
        .collect();
    objects.extend(more.into_iter().collect::<Result<Vec<_>>>()?);
    // A system library (libcudadevrt) stays only when the other objects use it.
    let system: Vec<bool> = loaded.units.iter().map(|u| u.system).collect();
    let system_used = args.keep_system_libraries || resolve::uses_any(&objects, &system);
    if !system_used && system.iter().any(|&s| s) {
        objects.retain(|o| !system[o.id as usize]);
        for (i, o) in objects.iter_mut().enumerate() {
            o.id = i as u32;
        }
    }
    let registrations: Vec<input::Registration> = loaded
        .registrations
        .iter()
        .filter(|r| system_used || !r.system)
        .cloned()
        .collect();
    let write_registrations = || -> Result<()> {
        match &args.register_link_binaries {
            Some(path) => {
                write::write_file(path, input::registration_file(&registrations).as_bytes())
            }
            None => Ok(()),
        }
    };
    drop(load);
    // -Werror fails on a missing architecture before anything is written.
    if !args.suppress_arch_warning && !args.disable_infos {
        if args.warning_as_error && !loaded.arch_warnings.is_empty() {
            return Err(Failure {
                errors: loaded.arch_warnings.clone(),
                fatal: Some("elfLink internal error".into()),
                code: 1,
                ..Default::default()
            });
        }
        early.warnings.extend(loaded.arch_warnings.iter().cloned());
    }
    // A compute_XX target (nvcc's `code=compute_XX`) links nothing: only the registration
    // file is wanted.
    if arch.kind == arch::ArchKind::Compute {
        write_registrations()?;
        return Ok(LinkOutcome::default());
    }
    // Kernels host code never launches are dropped, unless some input came without host
    // information or the host objects name no kernel at all. A used system library keeps
    // its kernels, and its own references do not count.
    let kernel_refs: Vec<Vec<u8>> = loaded
        .kernel_refs
        .iter()
        .filter(|(_, from_system)| !from_system)
        .map(|(p, _)| p.clone())
        .collect();
    let host_kernels = (!args.ignore_host_info
        && !args.relocatable
        && !loaded.has_bare_input
        && !kernel_refs.is_empty())
    .then(|| merge::HostKernels {
        patterns: kernel_refs,
        exempt: objects
            .iter()
            .map(|o| system[o.id as usize] && system_used)
            .collect(),
    });
    check_architectures(&objects, &arch)?;
    check_debug_link(&objects, &arch, args)?;

    // An executable link with unified functions/variables needs the UFT/UDT index file
    // (-uidx), whose format is unknown; nvlink refuses it without one.
    let unified = |o: &object::InputObject<'_>| {
        o.cubin
            .sections
            .iter()
            .any(|s| s.name == b".nv.uft.entry" || s.name == b".nv.udt.entry")
    };
    // (-r merges their tables, `merge::unified`.)
    if !args.relocatable && objects.iter().any(unified) {
        return Err(Error::new("Unified symbols found but index file not specified.").into());
    }
    let (res, errs) =
        tracing::info_span!("resolve").in_scope(|| resolve::resolve(&objects, args.relocatable));
    if !errs.duplicates.is_empty() {
        return Err(Failure {
            errors: errs.duplicates.iter().map(|e| e.to_string()).collect(),
            fatal: Some("merge_elf failed".into()),
            code: 1,
            ..Default::default()
        });
    }
    // nvcc includes the registration file in its link stub; nvlink writes it once the
    // inputs are merged (so also when references stay undefined, but not after a multiple
    // definition).
    write_registrations()?;
    let kernels = args.kernel_filter();
    let live = tracing::info_span!("liveness").in_scope(|| {
        liveness::liveness(
            &objects,
            &res,
            &liveness::Roots {
                kernels_used: kernels.as_deref(),
                host_kernels: host_kernels.as_ref(),
                keep_all: args.preserve_relocs || args.relocatable || args.debug,
                keep_shared: args.relocatable,
            },
        )
    });
    // Only references from code the link keeps are errors (nvlink ignores what dead
    // functions call, e.g. libcudadevrt's unused entry points).
    let mut undefined = errs.undefined;
    undefined.extend(
        errs.undefined_functions
            .into_iter()
            .filter(|(g, _)| live.undefined_from_live.contains(g)),
    );
    undefined.sort_by_key(|(g, _)| *g);
    if !undefined.is_empty() {
        return Err(Failure {
            errors: undefined.iter().map(|(_, e)| e.to_string()).collect(),
            code: 255,
            ..Default::default()
        });
    }
    let recorded = cli::recorded_options(args);
    let opts = merge::Options {
        arch_sm: arch.sm,
        tool_args: recorded.1,
        tool_file: recorded.0,
        kernels_used: kernels,
        suppress_stack_size_warning: args.suppress_stack_size_warning,
        dump_callgraph: args.dump_callgraph || args.dump_callgraph_no_demangle,
        preserve_relocs: args.preserve_relocs,
        debug: args.debug,
        arch_name: arch.to_string(),
        mercury: arch.is_mercury(),
        accelerated: arch.variant == arch::Variant::Accelerated,
        relocatable: args.relocatable,
    };
    let mut built =
        tracing::info_span!("merge").in_scope(|| merge::build(&objects, &res, &live, &opts))?;
    if args.disable_infos {
        built.warnings.clear();
    }
    if !built.errors.is_empty() {
        return Err(Failure {
            warnings: built.warnings,
            errors: built.errors,
            code: 255,
            ..Default::default()
        });
    }
    // -Werror turns every warning into an error (status 255, no output), as nvlink does.
    if args.warning_as_error && !(built.warnings.is_empty() && option_warnings.is_empty()) {
        return Err(Failure {
            errors: [option_warnings, built.warnings].concat(),
            code: 255,
            ..Default::default()
        });
    }
    let (mut module, warnings, resource_report, callgraph) = (
        built.module,
        built.warnings,
        built.resource_report,
        built.callgraph_report,
    );
    module.add_symtab_shndx_if_needed();
    let lay = tracing::info_span!("layout").in_scope(|| layout::layout(&module));
    // Damaged inputs (absurd sizes or alignments) could ask for an enormous file.
    if lay.file_size > 1 << 32 {
        return Err(Error::new(format!(
            "the output would be {} bytes; an input is damaged",
            lay.file_size
        ))
        .into());
    }
    let bytes = tracing::info_span!("write").in_scope(|| write::to_bytes(&module, &lay));
    // (cli::check made sure there is an output file.)
    let out = args.output.clone().unwrap_or_default();
    write::write_file(&out, &bytes)?;
    let mut infos = Vec::new();
    if args.verbose {
        infos.extend(resource_report);
    }
    Ok(LinkOutcome {
        warnings,
        infos,
        callgraph,
        ..Default::default()
    })
}

/// What `-g` asks of nvlink that cubin-ld does not do (refused rather than linked otherwise):
/// on sm_100 and later nvlink rebuilds code compiled without `-G` for the debugger (barriers
/// before every exit, a new schedule), in `-r` too; and a partial link under `-g` places extern
/// `__shared__` arrays its own way.
fn check_debug_link(
    objects: &[object::InputObject<'_>],
    arch: &arch::Arch,
    args: &cli::Args,
) -> Result<(), Failure> {
    if !args.debug {
        return Ok(());
    }
    let not_yet = Error::not_implemented;
    if arch.is_mercury() {
        if let Some(o) = objects
            .iter()
            .find(|o| o.has_code() && !o.has_section(b".debug_info"))
        {
            return Err(not_yet(format!(
                "'{}' holds sm_100+ code compiled without -G; rebuilding it for the debugger \
                 under -g (as nvlink does)",
                o.name
            ))
            .into());
        }
    }
    if args.relocatable {
        let extern_shared = |o: &object::InputObject<'_>| {
            o.symbols().iter().any(|s| {
                s.section == crate::elf::read::SymSection::Undefined
                    && s.other & crate::elf::STO_CUDA_SHARED != 0
                    && s.st_type != crate::elf::STT_FUNC
            })
        };
        if let Some(o) = objects.iter().find(|o| extern_shared(o)) {
            return Err(not_yet(format!(
                "'{}' uses extern __shared__ arrays; a partial link (-r) of them under -g",
                o.name
            ))
            .into());
        }
    }
    Ok(())
}

/// nvlink's rules for which objects may be linked for the target, with its messages.
fn check_architectures(
    objects: &[object::InputObject<'_>],
    arch: &arch::Arch,
) -> std::result::Result<(), Failure> {
    let mismatch = |o: &object::InputObject<'_>| {
        Failure::from(Error::new(format!(
            "Input file '{}' arch does not match target '{arch}'",
            o.name
        )))
    };
    for (i, o) in objects.iter().enumerate() {
        // Code without a Mercury half cannot go into an sm_100+ module; nvlink warns, then
        // fails on the object's architecture, or on its missing compatibility records (sm_80
        // objects have none) when it is not the first.
        let accelerated = o.is_accelerated();
        let to_plain = accelerated && arch.variant != arch::Variant::Accelerated;
        if arch.is_mercury() && o.sm < 100 {
            let mut f = if to_plain {
                Error::new("cannot link accelerated arch to non-accelerated").into()
            } else if i == 0 || o.has_compat_info() {
                mismatch(o)
            } else {
                Error::new("cannot read nvcompat").into()
            };
            f.warnings.push(format!(
                "Output is limited to run on SM Arch '{}' only due to limitations in input file {}",
                arch.sm, o.name
            ));
            return Err(f);
        }
        if to_plain {
            return Err(Error::new("cannot link accelerated arch to non-accelerated").into());
        }
        // 'a' code runs on exactly its SM.
        if !arch::object_links_into(o.sm, arch.sm) || (accelerated && o.sm != arch.sm) {
            return Err(mismatch(o));
        }
    }
    Ok(())
}
