//! cubin-ld: an offline device linker for NVIDIA GPU cubins.
//!
//! `link` below is the pass list; DESIGN.md names each pass's file, its product and the
//! invariants between them. `dump` and `compare` are the inspector behind `cubin-dump` and
//! the differential tests.

pub mod arch;
pub mod checks;
pub mod cli;
pub mod compare;
pub mod control_bits;
pub mod demangle;
pub mod diag;
pub mod dump;
pub mod early_exit;
pub mod elf;
pub mod explain;
pub mod faults;
pub mod graph;
pub mod host_script;
pub mod ids;
pub mod input;
pub mod jitlink;
pub mod layout;
pub mod liveness;
pub mod load;
pub mod lto;
pub mod map;
pub mod mercury;
pub mod merge;
pub mod messages;
pub mod object;
pub mod output;
pub mod policy;
pub mod prefault;
pub mod progress;
pub mod refinalize;
pub mod reloc;
pub mod relocate;
pub mod reproduce;
pub mod resolve;
pub mod timing;
pub mod trace;
pub mod write;

use diag::{Early, Error};
pub use diag::{Failure, LinkOutcome, LoadMessage};

/// Runs a link. Nothing is written unless every pass succeeded; what loading reported comes
/// first, whatever happens later.
pub fn link(args: &cli::Args) -> std::result::Result<LinkOutcome, Failure> {
    link_and_then(args, |_| {})
}

/// What is told the link's result as soon as it is known: on success, before the inputs are
/// unmapped and the link's tables freed (the binary reports, then ends for its caller).
pub type Then<'a> = Box<dyn FnOnce(&std::result::Result<LinkOutcome, Failure>) + Send + 'a>;

/// [`link`], telling `then` the result (the one returned) as soon as it is known.
pub fn link_and_then<'a>(
    args: &cli::Args,
    then: impl FnOnce(&std::result::Result<LinkOutcome, Failure>) + Send + 'a,
) -> std::result::Result<LinkOutcome, Failure> {
    let mut early = Early::default();
    let mut then: Option<Then<'a>> = Some(Box::new(then));
    let r = on_threads(args, || link_inner(args, &mut early, &mut then));
    let r = early.complete(r);
    if let Some(then) = then.take() {
        then(&r);
    }
    r
}

/// Runs `f` on `--threads` threads (without it, on the global pool: one per core).
fn on_threads<T: Send>(
    args: &cli::Args,
    f: impl FnOnce() -> std::result::Result<T, Failure> + Send,
) -> std::result::Result<T, Failure> {
    // (The binary may have made the global pool the size asked for.)
    let n = match args.thread_count() {
        None => return f(),
        Some(Ok(n)) if n == rayon::current_num_threads() => return f(),
        Some(n) => n?,
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .map_err(|e| Error::new(format!("cannot start {n} threads: {e}")))?;
    pool.install(f)
}

/// The pass list. Each pass returns one product that later passes only read; `checks::*` are
/// the points where nvlink stops, in its order.
fn link_inner(
    args: &cli::Args,
    early: &mut Early,
    then: &mut Option<Then<'_>>,
) -> std::result::Result<LinkOutcome, Failure> {
    // -ghls writes a host linker script and links nothing.
    if let Some(kind) = &args.ghls {
        let stdout = host_script::generate(kind, args)?;
        return Ok(LinkOutcome {
            stdout,
            ..Default::default()
        });
    }
    let (arch, option_warnings) = start(args, early)?;
    let policy = policy::Policy::new(arch.sm, args.relocatable, args.debug, args.preserve_relocs);
    // 1. Inputs → device objects, dense ids in input order.
    let load_span = tracing::info_span!("load").entered();
    let files = load::map_files(args, &arch)?;
    if let Some(tar) = &args.reproduce {
        reproduce::write(tar, args, &files)?;
    }
    let loaded = load::read_inputs(args, &arch, &files, early)?;
    // 1b. LTO: the LTO-IR optimized into one cubin, the output itself or the first input.
    let Some(mut loaded) = load::link_time_optimize(args, &arch, loaded, early)? else {
        return Ok(LinkOutcome::default());
    };
    // 1b'. sm_100+ code nvlink's finalizer compiles again (from a ptxas before 13.4): a
    // final link of it is the toolkit's nvJitLink's, nvlink's own linker and finalizer.
    if let Some(cause) = jitlink::refinalized_input(&loaded, &arch) {
        let system_used = || {
            let user = load::user_objects(&loaded)?;
            let mut r = resolve::Resolver::new(&policy);
            r.add(&user, 0);
            Ok(args.keep_system_libraries || r.leaves_undefined())
        };
        jitlink::link(args, &arch, &files, &loaded, system_used, &cause, early)?;
        return Ok(LinkOutcome::default());
    }
    // 1c. sm_100+: what nvlink's finalizer changes in the inputs' code (the fence clean-up
    // of kernels calling nothing; in debug links, the debugger's barriers before exits).
    let refinalized =
        refinalize::Plan::new(&policy, || refinalize::any_compiled_with_g(&loaded.units));
    if let Some(plan) = refinalized {
        tracing::info_span!("refinalize")
            .in_scope(|| refinalize::apply(&mut loaded.units, plan))?;
    }
    let user = load::user_objects(&loaded)?;
    // (Declared before the resolver, which may name what it holds: on an early return the
    // resolver is dropped here, and a hash map's drop wants its keys alive.)
    #[allow(clippy::needless_late_init)]
    let system_bytes;
    drop(load_span);
    // 2. Resolution: one definition per global. The user's objects first: what they leave
    // undefined decides whether a system library is read at all.
    let mut resolver = tracing::info_span!("resolve").in_scope(|| {
        let mut r = resolve::Resolver::new(&policy);
        r.add(&user, 0);
        r
    });
    let system_span = tracing::info_span!("system_libraries").entered();
    let wanted = args.keep_system_libraries || resolver.leaves_undefined();
    system_bytes = {
        let mut b = load::system_bytes(&loaded, &user, wanted)?;
        if let Some(plan) = refinalized {
            refinalize::apply_to_system(&mut b, &loaded.units, plan)?;
        }
        b
    };
    let n_user = user.len();
    let inputs = load::with_system_libraries(user, &loaded, &system_bytes, wanted)?;
    if inputs.objects.len() > n_user {
        resolver.add(&inputs.objects, n_user);
    }
    drop(system_span);
    if let Some(path) = &args.why_extract {
        let text = explain::why_extract(&inputs.objects, &loaded.units);
        if path.as_os_str() == "-" {
            early.stdout += &text;
        } else {
            write::write_file(path, text.as_bytes())?;
        }
    }
    checks::arch_warnings(args, &loaded, early)?;
    // A compute_XX target (nvcc's `code=compute_XX`) links nothing: only the registration
    // file is wanted.
    if arch.kind == arch::ArchKind::Compute {
        inputs.write_registrations(args)?;
        return Ok(LinkOutcome::default());
    }
    let objects = &inputs.objects;
    checks::architectures(objects, &arch)?;
    checks::unified_index(objects, args)?;
    let (res, errs) = resolver.finish(objects, &policy);
    checks::duplicates(&errs)?;
    // nvcc includes the registration file in its link stub; nvlink writes it once the
    // inputs are merged (so also when references stay undefined, but not after a multiple
    // definition).
    inputs.write_registrations(args)?;
    // 3. Liveness, once: the kept sections, the code graph, the kernels.
    let kernels = args.kernel_filter();
    let host_kernels = inputs.host_kernels(args, &loaded);
    let live = tracing::info_span!("liveness").in_scope(|| {
        liveness::liveness(
            objects,
            &res,
            &liveness::Roots {
                kernels_used: kernels.as_deref(),
                // (-g: every kernel is one the link is for, launched or not: nvlink gives
                // an unlaunched one its MIN_STACK_SIZE; black-box, scripts/e2e.sh's debug
                // builds. -preserve-relocs keeps host code's choice.)
                host_kernels: host_kernels.as_ref().filter(|_| !args.debug),
                keep_all: !policy.removes_dead_code(),
                keep_shared: !policy.lays_out_shared_memory(),
            },
        )
    });
    let removed = if args.print_gc_sections || args.wants_map() {
        explain::removed(objects, &res, &live)
    } else {
        Vec::new()
    };
    if args.print_gc_sections {
        early.stdout += &explain::gc_sections_text(&removed);
    }
    if !args.why_live.is_empty() {
        early.stdout += &explain::why_live(objects, &res, &live, &args.why_live);
    }
    checks::undefined(errs, objects, &res, &live)?;
    // 4.–6. Merge, relocations, the sm_100+ Mercury half: the output module, frozen from
    // here on.
    let opts = merge_options(args, &arch, policy, kernels);
    // (The input files' pages, given back by the passes as they are done with them.)
    let pages = input::files::Pages::of(&files);
    let built = build_module(objects, &res, &live, &opts, &pages)?;
    let built = checks::merged(args, objects, built, option_warnings)?;
    // 7. Layout and write. The module holds what it needs of the inputs but the code it
    // names (`Content::Input`), which the writer reads again: their pages make room for the
    // output's, given back beside the layout (which runs on one thread).
    let (_, emitted) = rayon::join(
        || input::files::release_pages(&files),
        || emit(args, objects, &pages, built, &removed),
    );
    let r = early.complete(emitted);
    // (Told before the inputs and tables above are freed, on the way out.)
    if let Some(then) = then.take() {
        then(&r);
    }
    r
}

/// Passes 4 to 6, over the objects as the merge sees them: local functions that share a
/// name are told apart for these passes and named back after (`merge::local_names`).
fn build_module(
    objects: &[object::InputObject<'_>],
    res: &resolve::Resolution<'_>,
    live: &liveness::Liveness,
    opts: &merge::Options,
    pages: &input::files::Pages<'_>,
) -> diag::Result<merge::Built> {
    use merge::local_names;
    let aliases = tracing::info_span!("local_names").in_scope(|| local_names::aliases(objects))?;
    if aliases.iter().all(|a| a.is_empty()) {
        return module_passes(objects, res, live, opts, pages);
    }
    let renamed = local_names::renamed(objects, &aliases);
    local_names::restore(module_passes(&renamed, res, live, opts, pages))
}

fn module_passes(
    objects: &[object::InputObject<'_>],
    res: &resolve::Resolution<'_>,
    live: &liveness::Liveness,
    opts: &merge::Options,
    pages: &input::files::Pages<'_>,
) -> diag::Result<merge::Built> {
    // 4. Merge: sections, symbols, .nv.info, shared memory, resource slots.
    let mut merged =
        tracing::info_span!("merge").in_scope(|| merge::build(objects, res, live, opts, pages))?;
    // The link fails on what the merge found (`checks::merged` says it): nothing to relocate.
    if merged.has_errors() {
        return Ok(merged.finish());
    }
    // 5. Relocations: applied where the link resolves them, kept for the driver otherwise.
    let relocated = tracing::info_span!("relocate")
        .in_scope(|| relocate::relocate(&merged.placement, &mut merged.module, pages))?;
    // 6. sm_100+: the Mercury half mirrors the finished main half; then `.debug_frame`
    // loses the entries of removed functions.
    if opts.policy.mercury() {
        let function_info = merged.take_merc_function_info();
        tracing::info_span!("mercury").in_scope(|| {
            mercury::build(
                &merged.placement,
                &mut merged.module,
                relocated.capsule_values,
                function_info,
            )
        })?;
        merge::debug_frame::cut_dead_frames(&mut merged.module, &relocated.cleared);
    }
    Ok(merged.finish())
}

/// Checks the options against the target and says what nvlink says of them; returns the
/// target and the option warnings -Werror turns into errors.
fn start(
    args: &cli::Args,
    early: &mut Early,
) -> std::result::Result<(arch::Arch, Vec<String>), Failure> {
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
        early
            .option_warnings
            .extend(option_warnings.iter().cloned());
    }
    if let Some(t) = &args.time {
        early.stdout.push_str(&timing::start(t)?);
    }
    Ok((arch, option_warnings))
}

/// The merge's policy: the target, the mode, and what the output records of the command line.
fn merge_options(
    args: &cli::Args,
    arch: &arch::Arch,
    policy: policy::Policy,
    kernels_used: Option<Vec<String>>,
) -> merge::Options {
    let recorded = cli::recorded_options(args);
    merge::Options {
        policy,
        tool_args: recorded.1,
        tool_file: recorded.0,
        kernels_used,
        suppress_stack_size_warning: args.suppress_stack_size_warning,
        dump_callgraph: args.dump_callgraph || args.dump_callgraph_no_demangle,
        map: args.wants_map(),
        verbose: args.verbose,
        resource_usage: args.resource_usage.as_deref().map(|f| match f {
            "json" => merge::UsageFormat::Json,
            _ => merge::UsageFormat::Table,
        }),
        arch_name: arch.to_string(),
        accelerated: arch.variant == arch::Variant::Accelerated,
    }
}

/// An output this large is freed on a thread of its own.
const FREE_LATER_BYTES: u64 = 8 << 20;

/// Lays the module out and writes it.
fn emit(
    args: &cli::Args,
    objects: &[object::InputObject<'_>],
    pages: &input::files::Pages<'_>,
    built: merge::Built,
    removed: &[explain::Removed],
) -> std::result::Result<LinkOutcome, Failure> {
    let mut module = built.module;
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
    // (cli::check made sure there is an output file.)
    let out = args.output.clone().unwrap_or_default();
    tracing::info_span!("write").in_scope(|| {
        write::write_with(
            &out,
            &write::Image::new(&module, &lay, objects).giving_back(pages),
        )
    })?;
    let mut stdout = built.resource_usage;
    if args.wants_map() {
        let input = map::MapInput {
            target: args.arch.as_deref().unwrap_or_default(),
            output: &out,
            command: args.command_line(),
            module: &module,
            layout: &lay,
            origins: &built.origins,
            kernels: &built.kernel_facts,
            removed,
        };
        let text = match args.map_format.as_deref() {
            Some("json") => map::json_map(&input),
            _ => map::text(&input),
        };
        // (`-Map=-`: standard output, as in GNU ld and lld.)
        match &args.map {
            Some(path) if path.as_os_str() == "-" => stdout.push_str(&text),
            Some(path) => write::write_file(path, text.as_bytes())?,
            None => {}
        }
        if args.print_map {
            stdout.push_str(&text);
        }
    }
    // A large module is freed off the critical path: the caller need not wait for it (the
    // binary exits meanwhile).
    if lay.file_size > FREE_LATER_BYTES {
        early_exit::in_background(move || drop((module, lay)));
    }
    Ok(LinkOutcome {
        warnings: built.warnings,
        infos: built.resource_report,
        callgraph: built.callgraph_report,
        stdout,
        ..Default::default()
    })
}
