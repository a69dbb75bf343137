//! The refusals nvlink makes before and between the passes, with its messages and exit
//! statuses: options and architectures before anything is merged, multiple definitions after
//! resolution, undefined references after liveness, link errors and -Werror after the merge.

use crate::diag::{Early, Error, Failure, Result};
use crate::{arch, cli, input, liveness, merge, object, resolve};

/// -Werror fails on a missing architecture before anything is written; otherwise it is a
/// warning.
pub fn arch_warnings(
    args: &cli::Args,
    loaded: &input::Loaded<'_>,
    early: &mut Early,
) -> Result<(), Failure> {
    if args.suppress_arch_warning || args.disable_infos {
        return Ok(());
    }
    if args.warning_as_error && !loaded.arch_warnings.is_empty() {
        return Err(Failure {
            errors: loaded.arch_warnings.clone(),
            fatal: Some("elfLink internal error".into()),
            code: 1,
            ..Default::default()
        });
    }
    early.warnings.extend(loaded.arch_warnings.iter().cloned());
    Ok(())
}

/// An executable link with unified functions/variables needs the UFT/UDT index file
/// (-uidx), whose format is unknown; nvlink refuses it without one. (-r merges their
/// tables, `merge::unified`.)
pub fn unified_index(objects: &[object::InputObject<'_>], args: &cli::Args) -> Result<(), Failure> {
    let unified = |o: &object::InputObject<'_>| {
        o.cubin
            .sections
            .iter()
            .any(|s| s.name == b".nv.uft.entry" || s.name == b".nv.udt.entry")
    };
    if args.relocatable {
        return Ok(());
    }
    // (In parallel: it reads every section header.)
    let first = {
        use rayon::prelude::*;
        objects.par_iter().find_first(|o| unified(o))
    };
    match first {
        Some(o) => Err(
            Error::new("Unified symbols found but index file not specified.")
                .hint(format!(
                    "'{}' holds unified functions or variables (.nv.uft.entry, .nv.udt.entry): \
                     a final link of them needs the index file (-uidx), which cubin-ld does \
                     not support yet; a partial link (-r) takes them",
                    o.name
                ))
                .into(),
        ),
        None => Ok(()),
    }
}

/// nvlink stops at multiple definitions ("merge_elf failed").
/// What to do about a duplicate definition, after nvlink's `merge_elf failed`.
const DUPLICATE_HINT: &str = "each name above is defined in two inputs: keep one definition, \
     or make the others local to their file (static, or an anonymous namespace); a definition \
     in a header needs inline";

/// What to do about a name two inputs declare differently.
const MISMATCH_HINT: &str = "each name above is declared in one input otherwise than in the \
     first: give every declaration the definition's size, memory space (__device__, \
     __constant__, __shared__) and __managed__";

pub fn duplicates(errs: &resolve::ResolveErrors) -> Result<(), Failure> {
    if errs.duplicates.is_empty() {
        return Ok(());
    }
    let errors: Vec<String> = errs.duplicates.iter().map(|e| e.to_string()).collect();
    let hints = [
        ("Multiple definition", DUPLICATE_HINT),
        ("doesn't match for", MISMATCH_HINT),
    ]
    .into_iter()
    .filter(|(error, _)| errors.iter().any(|e| e.contains(error)))
    .map(|(_, hint)| hint.to_string())
    .collect();
    Err(Failure {
        errors,
        fatal: Some("merge_elf failed".into()),
        code: 1,
        hints: Box::new(hints),
        ..Default::default()
    })
}

/// Undefined references are link errors; for functions, only those live code makes (nvlink
/// ignores what dead functions call, e.g. libcudadevrt's unused entry points).
pub fn undefined(
    errs: resolve::ResolveErrors,
    objects: &[crate::object::InputObject<'_>],
    res: &resolve::Resolution<'_>,
    live: &liveness::Liveness,
) -> Result<(), Failure> {
    let mut undefined = errs.undefined;
    undefined.extend(
        errs.undefined_functions
            .into_iter()
            .filter(|(g, _)| live.undefined_from_live.contains(g)),
    );
    undefined.sort_by_key(|(g, _)| *g);
    if undefined.is_empty() {
        return Ok(());
    }
    // Better than nvlink: how the code that refers to it is kept, from a root.
    let chains = crate::explain::Chains::of(live);
    let with_chain = |(g, e): &(crate::ids::GlobalId, crate::diag::Error)| {
        let chain = live
            .undefined_referrer
            .get(g)
            .and_then(|&n| crate::explain::chain_line(objects, live, &chains, n));
        match chain {
            Some(c) => format!("{e}; kept by {c}"),
            None => e.to_string(),
        }
    };
    let mut failure = Failure::link_errors(undefined.iter().map(with_chain).collect());
    failure.hints.extend(device_runtime_hint(
        undefined.iter().map(|(g, _)| res.globals[*g].name),
    ));
    Err(failure)
}

/// Device code calls the CUDA device runtime (dynamic parallelism: `cudaLaunchDevice`,
/// `__cudaCDP2LaunchDeviceV2`, …) through C names starting `cuda` or `__cuda`, which only
/// libcudadevrt defines: one left undefined means it is not linked.
fn device_runtime_hint<'a>(mut undefined: impl Iterator<Item = &'a [u8]>) -> Option<String> {
    let name = undefined.find(|n| n.starts_with(b"cuda") || n.starts_with(b"__cuda"))?;
    Some(format!(
        "'{}' is in the CUDA device runtime (dynamic parallelism): link with -lcudadevrt and \
         the toolkit's library folder in -L (nvcc -rdc=true passes both)",
        String::from_utf8_lossy(name)
    ))
}

/// The merge's link errors fail the link; -Werror turns every warning into an error
/// (status 255, no output), as nvlink does. (-disable-infos silences the merge's warnings.)
pub fn merged(
    args: &cli::Args,
    objects: &[object::InputObject<'_>],
    mut built: merge::Built,
    option_warnings: Vec<String>,
) -> Result<merge::Built, Failure> {
    if args.disable_infos {
        built.warnings.clear();
    }
    // Inputs' shared memory fits 32 bits each (the reader's rule); merged, it must still.
    // (The input holding the most of it is named: a damaged size is the likely cause.)
    if let Some(s) =
        built.module.sections.iter().find(|s| {
            s.group == crate::output::Group::Shared && s.content.size() > u64::from(u32::MAX)
        })
    {
        let largest = objects
            .iter()
            .flat_map(|o| o.cubin.sections.iter().map(move |x| (o, x)))
            .filter(|(_, x)| x.name == &s.name[..])
            .max_by_key(|(_, x)| x.size);
        let part = largest.map_or(String::new(), |(o, x)| {
            format!(
                "; the largest part, {:#x} bytes, is in '{}'",
                x.size, o.name
            )
        });
        let e = format!(
            "shared memory '{}' adds up to {:#x} bytes, past its 32-bit addresses{part}",
            String::from_utf8_lossy(&s.name),
            s.content.size()
        );
        built.errors.push(e);
    }
    if !built.errors.is_empty() {
        return Err(Failure {
            warnings: built.warnings,
            ..Failure::link_errors(built.errors)
        });
    }
    if args.warning_as_error && !(built.warnings.is_empty() && option_warnings.is_empty()) {
        return Err(Failure::link_errors(
            [option_warnings, built.warnings].concat(),
        ));
    }
    Ok(built)
}

/// nvlink's rules for which objects may be linked for the target, with its messages.
pub fn architectures(
    objects: &[object::InputObject<'_>],
    arch: &arch::Arch,
) -> std::result::Result<(), Failure> {
    let mismatch = |o: &object::InputObject<'_>| {
        let error = Error::new(format!(
            "Input file '{}' arch does not match target '{arch}'",
            o.name
        ));
        Failure::from(error.hint(format!(
            "'{}' holds code for sm_{}: build it for {arch} (nvcc -arch={arch}), or link for \
             its target",
            o.name, o.sm
        )))
    };
    // (Each object's compatibility records read in parallel: finding them reads every
    // section header.)
    let accelerated: Vec<bool> = {
        use rayon::prelude::*;
        objects.par_iter().map(|o| o.is_accelerated()).collect()
    };
    for ((i, o), accelerated) in objects.iter().enumerate().zip(accelerated) {
        // Code without a Mercury half cannot go into an sm_100+ module; nvlink warns, then
        // fails on the object's architecture, or on its missing compatibility records (sm_80
        // objects have none) when it is not the first.
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
