//! Pass 1, the inputs: files mapped and read down to device cubins (`input`), then parsed
//! into objects in parallel (`object`). System libraries (libcudadevrt) come last; they are
//! decompressed and parsed only when something is left undefined that they might define, and
//! stay only when the other objects use them.

use crate::diag::{Early, Result};
use crate::ids::ObjectId;
use crate::object::InputObject;
use crate::{arch, cli, input, liveness, write};
use rayon::prelude::*;
use std::borrow::Cow;

/// The device objects of the link, in input order (ids dense from 0).
pub struct Objects<'l> {
    pub objects: Vec<InputObject<'l>>,
    /// Per input unit: whether it is a system library, and whether one is linked.
    system: Vec<bool>,
    system_used: bool,
    /// What `--register-link-binaries` writes (system libraries' only when linked).
    registrations: Vec<input::Registration>,
}

/// Maps and reads the inputs (host objects, archives and fatbins down to device cubins).
pub fn read_inputs<'f>(
    args: &cli::Args,
    arch: &arch::Arch,
    files: &'f [input::MappedFile],
    early: &mut Early,
) -> Result<input::Loaded<'f>> {
    let loaded = input::load(files, &input_options(args, arch, &args.ptxas_options()))?;
    early
        .tool_messages
        .extend(loaded.tool_messages.iter().cloned());
    early.infos.extend(loaded.infos.iter().cloned());
    early.warnings.extend(loaded.warnings.iter().cloned());
    if !args.disable_warnings {
        early.warnings.extend(loaded.skipped.iter().cloned());
        early.warnings.extend(input::missing_libraries(
            &args.libraries,
            &args.library_paths,
        ));
    }
    Ok(loaded)
}

/// Pass 1b, LTO (`lto`): under `-dlto`, the LTO-IR optimized into one cubin. Where that
/// cubin (or under `-emit-ptx` its PTX) is the output, it is written and the link is done;
/// otherwise the link takes it as its first input. `None`: the link is done.
pub fn link_time_optimize<'f>(
    args: &cli::Args,
    arch: &arch::Arch,
    mut loaded: input::Loaded<'f>,
    early: &mut Early,
) -> Result<Option<input::Loaded<'f>>> {
    let req = crate::lto::Request {
        arch,
        nvvmpath: args.nvvmpath.as_deref().map(std::path::Path::new),
        maxrregcount: args.maxrregcount,
        xptxas: &args.xptxas,
        relocatable: args.relocatable,
        emit_ptx: args.emit_ptx,
        ignore_host_info: args.ignore_host_info,
    };
    let Some(p) = crate::lto::optimize(&loaded, &req)? else {
        if args.dlto || args.lto {
            early
                .warnings
                .push("Ignoring -dlto option because no LTO objects found".into());
        }
        return Ok(Some(loaded));
    };
    early.infos.extend(p.infos);
    early.tool_messages.extend(p.tool_messages);
    // (Black-box: any libcudadevrt.a will do, even one that defines nothing used.)
    if p.needs_device_runtime && !loaded.units.iter().any(|u| u.system) {
        return Err(crate::diag::Error::new("expected libcudadevrt object"));
    }
    match p.outcome {
        crate::lto::Outcome::Ptx(text) => {
            write::write_file(&output_path(args), &text)?;
            Ok(None)
        }
        crate::lto::Outcome::Program(cubin) => {
            // (nvlink registers a whole program's modules last to first.)
            if let Some(path) = &args.register_link_binaries {
                let regs: Vec<_> = loaded
                    .registrations
                    .iter()
                    .filter(|r| !r.system)
                    .rev()
                    .cloned()
                    .collect();
                write::write_file(path, input::registration_file(&regs).as_bytes())?;
            }
            write::write_file(&output_path(args), &cubin)?;
            Ok(None)
        }
        crate::lto::Outcome::Cubin(cubin) => {
            loaded.units.insert(
                0,
                input::Unit {
                    name: LTO_UNIT.into(),
                    bytes: Cow::Owned(cubin),
                    system: false,
                    pending: None,
                    archive: None,
                },
            );
            loaded.has_bare_input |= p.partial;
            Ok(Some(loaded))
        }
    }
}

/// The name nvlink gives the cubin LTO made, in its messages.
pub const LTO_UNIT: &str = "lto.cubin";

fn output_path(args: &cli::Args) -> std::path::PathBuf {
    args.output.clone().unwrap_or_default()
}

/// Maps the input files (`-L`/`-l` resolved).
pub fn map_files(args: &cli::Args, arch: &arch::Arch) -> Result<Vec<input::MappedFile>> {
    let ptxas_options = args.ptxas_options();
    let in_opts = input_options(args, arch, &ptxas_options);
    input::map_files(&input::input_paths(&args.inputs, &in_opts))
}

fn input_options<'o>(
    args: &'o cli::Args,
    arch: &'o arch::Arch,
    ptxas_options: &'o [String],
) -> input::Options<'o> {
    input::Options {
        arch,
        library_paths: &args.library_paths,
        libraries: &args.libraries,
        register: args.register_link_binaries.is_some(),
        ptxas_options,
        decompressed: input::fatbin::Budget::of_this_machine(),
        lto: args.dlto || args.lto,
    }
}

/// The user's objects, parsed in parallel.
pub fn user_objects<'l>(loaded: &'l input::Loaded<'_>) -> Result<Vec<InputObject<'l>>> {
    let n_user = loaded.units.iter().take_while(|u| !u.system).count();
    let objects: Vec<Result<InputObject<'l>>> = loaded.units[..n_user]
        .par_iter()
        .enumerate()
        .map(|(i, u)| InputObject::new(ObjectId::from_index(i), u.name.clone(), &u.bytes))
        .collect();
    objects.into_iter().collect()
}

/// The system libraries' bytes, decompressed only when `wanted`: when the user's objects
/// leave something undefined (`resolve::Resolver::leaves_undefined`), or under
/// `--keep-system-libraries`.
pub fn system_bytes<'l>(
    loaded: &'l input::Loaded<'_>,
    user: &[InputObject<'_>],
    wanted: bool,
) -> Result<Vec<Cow<'l, [u8]>>> {
    let system_units = &loaded.units[user.len()..];
    if system_units.is_empty() || !wanted {
        return Ok(Vec::new());
    }
    let v: Vec<Result<Cow<'l, [u8]>>> = system_units.par_iter().map(|u| u.materialize()).collect();
    v.into_iter().collect()
}

/// The user's objects and, when `wanted` (a name left undefined, or --keep-system-libraries),
/// the system libraries' after them.
pub fn with_system_libraries<'l>(
    mut objects: Vec<InputObject<'l>>,
    loaded: &'l input::Loaded<'_>,
    system_bytes: &'l [Cow<'l, [u8]>],
    wanted: bool,
) -> Result<Objects<'l>> {
    let n_user = objects.len();
    let more: Vec<Result<InputObject<'l>>> = loaded.units[n_user..]
        .par_iter()
        .zip(system_bytes.par_iter())
        .enumerate()
        .map(|(i, (u, b))| InputObject::new(ObjectId::from_index(n_user + i), u.name.clone(), b))
        .collect();
    objects.extend(more.into_iter().collect::<Result<Vec<_>>>()?);
    // A system library (libcudadevrt) stays, whole, when the user's objects leave a name
    // undefined, whether or not it defines that name or live code refers to it (black-box:
    // an unlaunched kernel calling a missing function, or one object linked -r, brings
    // libcudadevrt's kernels into nvlink's output; testdata devrt_when_undefined).
    let system: Vec<bool> = loaded.units.iter().map(|u| u.system).collect();
    let system_used = wanted;
    if !system_used && system.iter().any(|&s| s) {
        objects.retain(|o| !system[o.id.index()]);
        for (i, o) in objects.iter_mut().enumerate() {
            o.id = ObjectId::from_index(i);
        }
    }
    let registrations = loaded
        .registrations
        .iter()
        .filter(|r| system_used || !r.system)
        .cloned()
        .collect();
    Ok(Objects {
        objects,
        system,
        system_used,
        registrations,
    })
}

impl Objects<'_> {
    /// Kernels host code never launches are dropped, unless some input came without host
    /// information or the host objects name no kernel at all. A used system library keeps
    /// its kernels, and its own references do not count.
    pub fn host_kernels(
        &self,
        args: &cli::Args,
        loaded: &input::Loaded<'_>,
    ) -> Option<liveness::HostKernels> {
        let kernel_refs: Vec<Vec<u8>> = loaded
            .kernel_refs
            .iter()
            .filter(|(_, from_system)| !from_system)
            .map(|(p, _)| p.clone())
            .collect();
        (!args.ignore_host_info
            && !args.relocatable
            && !loaded.has_bare_input
            && !kernel_refs.is_empty())
        .then(|| liveness::HostKernels {
            patterns: kernel_refs,
            exempt: self
                .objects
                .iter()
                .map(|o| self.system[o.id.index()] && self.system_used)
                .collect(),
        })
    }

    /// Writes the `--register-link-binaries` file, when asked for.
    pub fn write_registrations(&self, args: &cli::Args) -> Result<()> {
        match &args.register_link_binaries {
            Some(path) => write::write_file(
                path,
                input::registration_file(&self.registrations).as_bytes(),
            ),
            None => Ok(()),
        }
    }
}
